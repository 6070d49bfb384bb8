/**
 * The two limits of one upstream call, the same for the CLI (`--upstream-timeout`, `--upstream-max-time`), `serve`
 * and each of the app's proxies: a per-call timeout without an answer or a progress notification (each progress
 * restarts it), and a maximum total time, progress or not. 0 means no limit. The engine's HttpUpstream enforces them.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_S = 60;
export const DEFAULT_UPSTREAM_MAX_TIME_S = 600;
/** the largest values accepted: a day per call without progress, a week in all */
export const MAX_UPSTREAM_TIMEOUT_S = 86_400;
export const MAX_UPSTREAM_MAX_TIME_S = 7 * 86_400;

export const UPSTREAM_TIMEOUT_HINT = `seconds without an answer or a progress notification (each progress restarts it); 0: none; default ${DEFAULT_UPSTREAM_TIMEOUT_S}`;
export const UPSTREAM_MAX_TIME_HINT = `seconds in all for one call, progress or not; 0: none; default ${DEFAULT_UPSTREAM_MAX_TIME_S}`;

/** The limits in ms as HttpUpstream takes them (0: none), each defaulting as above. */
export function upstreamLimitsMs(
  timeoutS: number | undefined,
  maxTimeS: number | undefined,
): { upstreamTimeoutMs: number; upstreamMaxTimeMs: number } {
  return {
    upstreamTimeoutMs: Math.round((timeoutS ?? DEFAULT_UPSTREAM_TIMEOUT_S) * 1000),
    upstreamMaxTimeMs: Math.round((maxTimeS ?? DEFAULT_UPSTREAM_MAX_TIME_S) * 1000),
  };
}
