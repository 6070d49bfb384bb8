/**
 * `--replay-timing` (and the proxy setting of the same name): how long a replayed answer takes.
 * - `none` (default): at once;
 * - `recorded`: the recorded latency of the answer and the recorded spacing of its streamed messages;
 * - `x<speed>`: the recorded delays played at that speed, as a media player does — `x2` twice as fast (half the
 *   delays), `x0.5` half as fast (twice the delays), e.g. to push a client's timeout handling.
 */
export type ReplayTiming = 'none' | 'recorded' | `x${string}`;

export const REPLAY_TIMING_HINT = 'none, recorded, or x<speed> (e.g. x2: twice as fast, x0.5: half as fast)';

/** The speed the delays are divided by (1 = as recorded), undefined for `none`; throws on anything else. */
export function replaySpeed(timing: string | undefined): number | undefined {
  if (timing === undefined || timing === 'none') return undefined;
  if (timing === 'recorded') return 1;
  const m = /^x(\d+(?:\.\d+)?)$/.exec(timing);
  const speed = m ? Number(m[1]) : NaN;
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new Error(`replay timing must be ${REPLAY_TIMING_HINT}, got "${timing}"`);
  return speed;
}

/** Is this a valid replay timing? */
export function isReplayTiming(value: string): value is ReplayTiming {
  try {
    replaySpeed(value);
    return true;
  } catch {
    return false;
  }
}
