import { afterEach, describe, expect, it } from 'vitest';
import type { RewindApi, TrafficEvent } from '../../src/shared/api.js';
import {
  applyFilter,
  assignLanes,
  BUCKET_EDGES,
  distinct,
  EMPTY_FILTER,
  formatMs,
  formatTime,
  histogram,
  isFiltering,
  rowId,
  sourceLabel,
  statusKind,
  statusLabel,
  type TimelineFilter,
} from '../../src/renderer/src/views/timeline/model.js';
import { tempDir } from '../helpers/temp.js';
import { app, cleanup, client, upstream } from '../api/harness.js';

/**
 * The Timeline view's pure model. Exchanges come from the real engine (AppController + the real handler table,
 * used directly as a RewindApi) where their shape matters, and are written out by hand where only their timing does.
 */

afterEach(cleanup);

let seq = 0;
/** An exchange with only what lanes and buckets read (start, duration, answered or not). */
function timed(startedAt: number, durationMs: number, answered = true): TrafficEvent {
  return {
    proxyId: 'p',
    seq: ++seq,
    method: 'tools/call',
    key: `k${seq}`,
    source: 'upstream',
    cassette: 'none',
    request: { jsonrpc: '2.0', id: seq, method: 'tools/call' },
    stream: [],
    ...(answered ? { response: { jsonrpc: '2.0', id: seq, result: {} } } : {}),
    startedAt,
    durationMs,
  } as TrafficEvent;
}
const filter = (patch: Partial<TimelineFilter>): TimelineFilter => ({ ...EMPTY_FILTER, ...patch });

describe('timeline model over real exchanges', () => {
  it('derives status and source, filters by every field, lists methods and tools', async () => {
    const { api: handlers } = await app();
    const api: RewindApi = { call: handlers.call as RewindApi['call'], on: handlers.on };
    const server = await upstream();
    const cacheDir = await tempDir();
    const rec = await api.call('proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir });
    await api.call('rules.set', { id: rec.id, rules: { tools: [{ name: 'counter', behavior: { type: 'override', response: { text: 'fixed' } } }] } });
    const c = await client(rec.url!);
    await c.client.callTool({ name: 'echo', arguments: { text: 'Needle' } });
    await c.client.callTool({ name: 'fail', arguments: {} });
    await c.client.callTool({ name: 'counter', arguments: {} });
    await c.client.callTool({ name: 'echo', arguments: { nope: 1 } }).catch(() => {});
    await c.close();
    const callsOf = async (id: string): Promise<number> =>
      (await api.call('traffic.snapshot', {})).filter((e) => e.proxyId === id && e.method === 'tools/call').length;
    await expect.poll(() => callsOf(rec.id)).toBe(4); // a recorded exchange is published once its entry is written
    await api.call('proxies.stop', { id: rec.id });
    const replay = await api.call('proxies.create', { mode: 'replay', cacheDir });
    const r = await client(replay.url!);
    await r.client.callTool({ name: 'echo', arguments: { text: 'Needle' } });
    await r.client.callTool({ name: 'echo', arguments: { text: 'unrecorded' } }).catch(() => {});
    await expect.poll(() => callsOf(replay.id)).toBe(2);

    const all = await api.call('traffic.snapshot', {});
    // published when done (a recorded one once its entry is written): in seq order for positional picks
    const calls = all.filter((e) => e.method === 'tools/call').sort((a, b) => a.seq - b.seq);
    const [echo, fail, counter, badArgs, replayed, missed] = calls;
    expect(calls.map((e) => e.tool)).toEqual(['echo', 'fail', 'counter', 'echo', 'echo', 'echo']);

    expect(rowId(echo)).toBe(echo.seq); // an exchange is named by its timeline number alone
    expect([statusKind(echo), statusLabel(echo), sourceLabel(echo)]).toEqual(['ok', 'ok', 'upstream']);
    expect([statusKind(fail), statusLabel(fail)]).toEqual(['tool error', 'tool error']);
    expect(sourceLabel(counter)).toBe(`${counter.source} · override`);
    expect(statusKind(badArgs)).toBe('tool error'); // the SDK answers invalid arguments with an isError result
    expect(echo.behavior).toBe('relay'); // under rules, but not changed by one: no rule in the label
    expect([statusKind(replayed), sourceLabel(replayed)]).toEqual(['ok', 'cache']);
    expect(statusKind(missed)).toBe('error');
    expect(statusLabel(missed)).toBe('error -32004'); // the JSON-RPC code of an unrecorded call
    expect(statusKind({ ...echo, response: undefined })).toBe('pending');

    expect(isFiltering(EMPTY_FILTER)).toBe(false);
    expect(isFiltering(filter({ text: '   ' }))).toBe(false);
    expect(applyFilter(all, EMPTY_FILTER)).toBe(all);
    expect(applyFilter(all, filter({ method: 'tools/call' }))).toEqual(all.filter((e) => calls.includes(e))); // order kept
    expect(applyFilter(all, filter({ tool: 'fail' }))).toEqual([fail]);
    expect(applyFilter(calls, filter({ proxy: replay.id, tool: 'echo' }))).toEqual([replayed, missed]);
    expect(applyFilter(calls, filter({ status: 'tool error' }))).toEqual([fail, badArgs]);
    expect(applyFilter(calls, filter({ status: 'error' }))).toContain(missed);
    expect(applyFilter(calls, filter({ source: 'cache' }))).toEqual([replayed]);
    expect(applyFilter(calls, filter({ source: 'rule' }))).toEqual([counter]);
    // text: case-insensitive over method, tool, key, request, response and stream
    expect(applyFilter(calls, filter({ text: '  needle ' }))).toEqual([echo, replayed]);
    expect(applyFilter(calls, filter({ text: 'FIXED' }))).toEqual([counter]);
    expect(applyFilter(calls, filter({ text: 'needle', proxy: rec.id }))).toEqual([echo]);
    expect(applyFilter(all, filter({ text: 'no such text anywhere' }))).toEqual([]);

    const { methods, tools } = distinct(all);
    expect(methods).toEqual([...new Set(all.map((e) => e.method))].sort());
    expect(methods).toContain('initialize');
    expect(tools).toEqual(['counter', 'echo', 'fail']);
  });
});

describe('timeline model: waterfall lanes', () => {
  it('puts each exchange on the first lane free at its start; lanes = the peak concurrency', () => {
    const a = timed(0, 100);
    const b = timed(10, 20); // overlaps a
    const c = timed(30, 50); // b is done: lane 1 again
    const d = timed(40, 10); // a and c busy
    const e = timed(100, 5); // a ends at 100: lane 0 is free (end <= start)
    const { bars, lanes, t0, t1 } = assignLanes([e, d, c, b, a], 0);
    expect(bars.map((bar) => [bar.event.seq, bar.lane, bar.start, bar.end])).toEqual([
      [a.seq, 0, 0, 100],
      [b.seq, 1, 10, 30],
      [c.seq, 1, 30, 80],
      [d.seq, 2, 40, 50],
      [e.seq, 0, 100, 105],
    ]);
    expect([lanes, t0, t1]).toEqual([3, 0, 105]);
  });

  it('a pending exchange runs until now; a negative duration is drawn as zero; empty input is one point', () => {
    const pending = timed(1_000, 0, false);
    const odd = timed(1_010, -5);
    const out = assignLanes([pending, odd], 1_500);
    expect(out.bars.map((b) => [b.lane, b.start, b.end])).toEqual([
      [0, 1_000, 1_500],
      [1, 1_010, 1_010],
    ]);
    expect([out.t0, out.t1]).toEqual([1_000, 1_500]);
    expect(assignLanes([timed(2_000, 0, false)], 1_000).bars[0].end).toBe(2_000); // never before its start
    expect(assignLanes([], 5)).toEqual({ bars: [], lanes: 0, t0: 0, t1: 0 });
  });
});

describe('timeline model: latency histogram', () => {
  it('has 1-2-5 edges per decade from 1 ms to 100 s', () => {
    expect(BUCKET_EDGES).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000]);
  });

  it('counts answered exchanges in [from, to) buckets, trimmed to the non-empty range', () => {
    const list = [timed(0, 0.4), timed(0, 2), timed(0, 4.99), timed(0, 5), timed(0, 19), timed(0, -3), timed(0, 7_000, false)];
    expect(histogram(list)).toEqual([
      { from: 0, to: 1, count: 2 }, // 0.4 ms and the negative one (as 0)
      { from: 1, to: 2, count: 0 },
      { from: 2, to: 5, count: 2 },
      { from: 5, to: 10, count: 1 },
      { from: 10, to: 20, count: 1 },
    ]);
    expect(histogram([timed(0, 150), timed(0, 199.9)])).toEqual([{ from: 100, to: 200, count: 2 }]);
    expect(histogram([timed(0, 600_000)])).toEqual([{ from: 500_000, to: Infinity, count: 1 }]);
    expect(histogram([timed(0, 10, false)])).toEqual([]);
    expect(histogram([])).toEqual([]);
  });

  it('formats bucket edges and times', () => {
    expect([formatMs(0), formatMs(500), formatMs(1_000), formatMs(2_500), formatMs(Infinity)]).toEqual(['0 ms', '500 ms', '1 s', '2.5 s', '∞']);
    const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime(); // local time, as formatTime shows it
    expect(formatTime(at)).toBe('03:04:05.006');
  });
});
