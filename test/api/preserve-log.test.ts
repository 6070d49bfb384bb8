import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { LOG_FILE, loadLog } from '../../src/main/api/traffic/timeline-log.js';
import { app, call, cleanup, client, keep, upstream } from './harness.js';

// Preserve log (issue 25, item 10): the timeline's exchanges kept across a restart of the app, bounded by its byte
// cap; and a file opened into the timeline answered on its own (traffic.snapshot proxyId). A real AppController, a
// real SDK upstream and client; the restart is a second controller on the same data folder.

afterEach(cleanup);

async function traffic(): Promise<{
  dataDir: string;
  calls: number;
  api: Awaited<ReturnType<typeof app>>['api'];
  controller: AppController;
}> {
  const { api, controller, dataDir } = await app();
  const server = await upstream();
  const rec = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
  const c = await client(rec.url!);
  for (let i = 0; i < 5; i++) await c.client.callTool({ name: 'echo', arguments: { text: `kept ${i}` } });
  await expect
    .poll(async () => (await call(api, 'traffic.snapshot', {})).filter((e) => e.method === 'tools/call').length)
    .toBe(5);
  await c.close();
  return { dataDir, calls: 5, api, controller };
}

/** the app started again on the same folder */
function again(dataDir: string): { api: ReturnType<typeof createApiHandlers>; logs: string[] } {
  const logs: string[] = [];
  const controller = keep(new AppController({ dataDir, log: (line) => void logs.push(line) }));
  return { api: createApiHandlers(controller, { shell: 'browser', version: '0.0.0-test' }), logs };
}

describe('Preserve log', () => {
  it('off (the default): a restart keeps the pinned exchange only, and no log file is left', async () => {
    const { dataDir, api, controller } = await traffic();
    const all = await call(api, 'traffic.snapshot', {});
    const pinned = all.find((e) => e.method === 'tools/call')!;
    await call(api, 'traffic.annotate', { seq: pinned.seq, pinned: true });
    await controller.close();
    expect(existsSync(join(dataDir, LOG_FILE))).toBe(false);
    const next = again(dataDir);
    expect((await call(next.api, 'traffic.snapshot', {})).map((e) => e.seq)).toEqual([pinned.seq]);
  });

  it('on: every exchange comes back with its number, the pinned one once; a bad line is left out and said', async () => {
    const { dataDir, api, controller } = await traffic();
    await call(api, 'settings.set', { preserveLog: true });
    const before = await call(api, 'traffic.snapshot', {});
    await call(api, 'traffic.annotate', { seq: before[2].seq, pinned: true, note: 'look' });
    await controller.close();
    const file = join(dataDir, LOG_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(before.length);
    appendFileSync(file, '{"not":"an exchange"}\nnot json at all\n');

    const next = again(dataDir);
    const after = await call(next.api, 'traffic.snapshot', {});
    expect(after.map((e) => [e.seq, e.method, e.tool])).toEqual(before.map((e) => [e.seq, e.method, e.tool]));
    expect(await call(next.api, 'traffic.annotations', {})).toEqual({
      [before[2].seq]: { pinned: true, note: 'look' },
    });
    expect(next.logs.some((l) => l.includes('2 lines of the saved timeline were not exchanges'))).toBe(true);
    // numbering goes on after them: a new exchange never takes one of their numbers
    const server = await upstream();
    const proxy = await call(next.api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const c = await client(proxy.url!);
    await c.client.callTool({ name: 'echo', arguments: { text: 'new' } });
    await expect.poll(async () => (await call(next.api, 'traffic.snapshot', {})).length).toBeGreaterThan(after.length);
    const newest = (await call(next.api, 'traffic.snapshot', {})).at(-1) as TrafficEvent;
    expect(newest.seq).toBeGreaterThan(Math.max(...before.map((e) => e.seq)));
  });

  it('bounded by the byte cap: the newest exchanges within it are read; a file over twice the cap is not read', async () => {
    const { dataDir, api, controller } = await traffic();
    await call(api, 'settings.set', { preserveLog: true });
    const before = await call(api, 'traffic.snapshot', {});
    await controller.close();
    const weights = before.map((e) => e.bytes ?? 0);
    expect(weights.every((w) => w > 0)).toBe(true);
    // a cap of half the file: the newest exchanges that fit in it
    const cap = Math.ceil(statSync(join(dataDir, LOG_FILE)).size / 2);
    let fit = 0;
    for (let used = 0; fit < weights.length && used + weights[weights.length - 1 - fit] <= cap; fit++)
      used += weights[weights.length - 1 - fit];
    expect(fit).toBeGreaterThan(0);
    expect(fit).toBeLessThan(before.length);
    expect(loadLog(dataDir, cap).events.map((e) => e.seq)).toEqual(before.slice(-fit).map((e) => e.seq));
    const tiny = loadLog(dataDir, 10);
    expect(tiny.events).toEqual([]);
    expect(tiny.problem).toContain('larger than twice the timeline');
  });
});

describe('traffic.snapshot of one proxy or opened file', () => {
  it('answers only that one’s exchanges, newest last, limited', async () => {
    const { api } = await traffic();
    const all = await call(api, 'traffic.snapshot', {});
    const proxyId = all[0].proxyId;
    expect(await call(api, 'traffic.snapshot', { proxyId })).toEqual(all.filter((e) => e.proxyId === proxyId));
    expect(await call(api, 'traffic.snapshot', { proxyId, limit: 2 })).toEqual(
      all.filter((e) => e.proxyId === proxyId).slice(-2),
    );
    expect(await call(api, 'traffic.snapshot', { proxyId: 'nobody' })).toEqual([]);
  });
});
