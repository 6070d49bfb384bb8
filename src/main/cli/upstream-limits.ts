import { MAX_UPSTREAM_MAX_TIME_S, MAX_UPSTREAM_TIMEOUT_S } from '../../shared/upstream-limits.js';
import { UsageError } from '../engine/errors.js';

/** A number flag within bounds, else a UsageError naming the flag. */
export function numberFlag(name: string, value: string, min: number, max: number, integer = false): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${name} must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}, got "${value}"`,
    );
  }
  return n;
}

/** `--upstream-timeout` and `--upstream-max-time` (the proxy's and serve's), in seconds; 0: no limit. */
export function upstreamLimitFlags(raw: { upstreamTimeout?: unknown; upstreamMaxTime?: unknown }): {
  upstreamTimeoutS: number;
  upstreamMaxTimeS: number;
} {
  return {
    upstreamTimeoutS: numberFlag('--upstream-timeout', String(raw.upstreamTimeout), 0, MAX_UPSTREAM_TIMEOUT_S),
    upstreamMaxTimeS: numberFlag('--upstream-max-time', String(raw.upstreamMaxTime), 0, MAX_UPSTREAM_MAX_TIME_S),
  };
}
