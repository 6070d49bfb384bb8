/**
 * The upstream call limits as one timer sweep (upstream/call-deadlines.ts): what each call's limits do, on a fake
 * clock (the per-call timeout restarted by progress, the total time not; a cleared call is never cut; the sweep's
 * timer goes once nothing runs). Through real processes: test/reliability/upstream-limits.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamTimeoutError } from '../../src/main/engine/errors.js';
import { CallDeadlines } from '../../src/main/engine/upstream/call-deadlines.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

/** What a limit cuts: it records the errors it was destroyed with. */
const target = (): {
  destroy: (error: Error) => void;
  cuts: Error[];
  cutBy: () => UpstreamTimeoutError | undefined;
} => {
  const cuts: Error[] = [];
  return {
    cuts,
    destroy: (error) => void cuts.push(error),
    cutBy: () => cuts[0] as UpstreamTimeoutError | undefined,
  };
};

describe('CallDeadlines', () => {
  it('cuts a silent call after the per-call limit, once, naming it; progress restarts it', async () => {
    const deadlines = new CallDeadlines({ callMs: 1_000 });
    const silent = target();
    const talking = target();
    deadlines.start(silent);
    const restarted = deadlines.start(talking);
    await vi.advanceTimersByTimeAsync(700);
    restarted.restart();
    await vi.advanceTimersByTimeAsync(400); // 1.1 s: the silent one is cut, the other heard 0.4 s ago
    expect(silent.cuts).toHaveLength(1);
    expect(silent.cutBy()).toMatchObject({ limit: 'call', seconds: 1 });
    expect(talking.cuts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(700);
    expect(talking.cutBy()).toMatchObject({ limit: 'call' });
    expect(restarted.fired).toBe(talking.cutBy());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(silent.cuts).toHaveLength(1);
  });

  it('the total limit holds however often progress restarts the per-call one', async () => {
    const deadlines = new CallDeadlines({ callMs: 1_000, totalMs: 3_000 });
    const busy = target();
    const deadline = deadlines.start(busy);
    for (let t = 0; t < 3_500; t += 500) {
      deadline.restart();
      await vi.advanceTimersByTimeAsync(500);
    }
    expect(busy.cuts).toHaveLength(1);
    expect(busy.cutBy()).toMatchObject({ limit: 'total', seconds: 3 });
  });

  it('a call cleared (its answer ended) is never cut, and the sweep stops once nothing runs', async () => {
    const deadlines = new CallDeadlines({ callMs: 200 });
    const done = target();
    deadlines.start(done).clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.cuts).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    const later = target();
    deadlines.start(later); // the sweep starts again
    await vi.advanceTimersByTimeAsync(250);
    expect(later.cutBy()).toBeInstanceOf(UpstreamTimeoutError);
  });
});
