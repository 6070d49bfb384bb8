import { afterEach, describe, expect, it } from 'vitest';
import type { RewindApi, TrafficEvent } from '../../src/shared/api.js';
import {
  applyFilter,
  BUCKET_EDGES,
  distinct,
  EMPTY_FILTER,
  formatMs,
  formatTime,
  histogram,
  isFiltering,
  plainContext,
  rowId,
  sourceLabel,
  statusKind,
  statusLabel,
  type TimelineFilter,
} from '../../src/renderer/src/views/timeline/model.js';
import { overviewBins, timeSpan } from '../../src/renderer/src/views/timeline/chart-model.js';
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
    await api.call('rules.set', {
      id: rec.id,
      rules: { tools: [{ name: 'counter', behavior: { type: 'override', response: { text: 'fixed' } } }] },
    });
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
    expect(statusKind({ ...echo, response: undefined, final: undefined })).toBe('pending');

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

    // the query language over the same exchanges: keys, any of, wildcards, negation, regex, quoted text, has:
    const q = (text: string): TrafficEvent[] => applyFilter(calls, filter({ text }));
    expect(q('tool:fail')).toEqual([fail]);
    expect(q('tool:ECHO -status:ok')).toEqual([badArgs, missed]);
    expect(q('tool:fail,counter')).toEqual([fail, counter]);
    expect(q('status:tool-error')).toEqual([fail, badArgs]);
    expect(q('status:-32004')).toEqual([missed]);
    expect(q('source:cache')).toEqual([replayed]);
    expect(q('source:rule')).toEqual([counter]);
    expect(q('has:edit')).toEqual([counter]);
    expect(q('has:error')).toEqual([fail, badArgs, missed]);
    expect(q(`proxy:${replay.id}`)).toEqual([replayed, missed]);
    expect(q('/need+le/')).toEqual([echo, replayed]);
    expect(q('"fixed"')).toEqual([counter]);
    expect(q('-needle tool:echo')).toEqual([badArgs, missed]);
    expect(q('method:tools/* tool:e*')).toEqual([echo, badArgs, replayed, missed]);
    expect(q('duration>=0 larger-than:1')).toEqual(calls);
    expect(q('duration<0')).toEqual([]);
    expect(q('status:nonsense')).toEqual(calls); // a term that cannot be used is left out (and said: see filter-language)
    // the app's own traffic (its session's setup, Compose's lists) is left out when hidden
    const own = { ...echo, seq: 999, sentBy: { kind: 'app' as const } };
    const composed = { ...echo, seq: 1000, sentBy: { kind: 'compose' as const } };
    expect(applyFilter([own, composed, echo], EMPTY_FILTER, { ...plainContext(), hideApp: true })).toEqual([
      composed,
      echo,
    ]);
    expect(applyFilter([own, echo], EMPTY_FILTER, plainContext())).toEqual([own, echo]);

    const { methods, tools } = distinct(all);
    expect(methods).toEqual([...new Set(all.map((e) => e.method))].sort());
    expect(methods).toContain('initialize');
    expect(tools).toEqual(['counter', 'echo', 'fail']);
  });
});

describe("timeline model: the waterfall's time span", () => {
  it('spans the first start to the last end; lanes = the peak number open at once', () => {
    const a = timed(0, 100);
    const b = timed(10, 20); // overlaps a
    const c = timed(30, 50); // b ends as c starts
    const d = timed(40, 10); // a and c busy: a third at once
    const e = timed(100, 5); // a ends at 100
    expect(timeSpan([e, d, c, b, a], 0)).toEqual({ t0: 0, t1: 105, lanes: 3 });
  });

  it('a pending exchange runs until now (never before its start); a negative duration is drawn as zero; nothing is one point', () => {
    expect(timeSpan([timed(1_000, 0, false), timed(1_010, -5)], 1_500)).toEqual({ t0: 1_000, t1: 1_500, lanes: 2 });
    expect(timeSpan([timed(2_000, 0, false)], 1_000)).toEqual({ t0: 2_000, t1: 2_000, lanes: 1 });
    expect(timeSpan([], 5)).toEqual({ t0: 0, t1: 0, lanes: 0 });
  });

  it('the overview counts the starts in equal slices of the span (the last edge in the last slice)', () => {
    const list = [timed(0, 1), timed(1, 1), timed(49, 1), timed(50, 1), timed(99, 1), timed(100, 1)];
    expect(overviewBins(list, 0, 100, 4)).toEqual([2, 1, 1, 2]);
    expect(overviewBins([], 0, 0, 3)).toEqual([0, 0, 0]);
  });
});

describe('timeline model: latency histogram', () => {
  it('has 1-2-5 edges per decade from 1 ms to 100 s', () => {
    expect(BUCKET_EDGES).toEqual([
      1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
    ]);
  });

  it('counts answered exchanges in [from, to) buckets, trimmed to the non-empty range', () => {
    const list = [
      timed(0, 0.4),
      timed(0, 2),
      timed(0, 4.99),
      timed(0, 5),
      timed(0, 19),
      timed(0, -3),
      timed(0, 7_000, false),
    ];
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
    expect([formatMs(0), formatMs(500), formatMs(1_000), formatMs(2_500), formatMs(Infinity)]).toEqual([
      '0 ms',
      '500 ms',
      '1 s',
      '2.5 s',
      '∞',
    ]);
    const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime(); // local time, as formatTime shows it
    expect(formatTime(at)).toBe('03:04:05.006');
  });
});
