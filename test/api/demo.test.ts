import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { demoLogoPng } from '../../src/main/api/demo/demo-server.js';
import { distilledFiles } from '../helpers/temp.js';
import { app, call, cleanup, client, textOf } from './harness.js';

afterEach(cleanup);

/** the tools the demo agent calls; the server also lists `schedule` (for Compose), which the agent leaves alone */
const TOOLS = ['weather', 'logo', 'stats', 'long-task', 'summarize'];
const result = (event: TrafficEvent | undefined): Record<string, unknown> =>
  (event?.response as { result: Record<string, unknown> }).result;

describe('api: demo', () => {
  it('starts a demo server, a recording proxy in front of it and an agent that calls every tool', async () => {
    const { api, dataDir, controller, logs } = await app();
    const traffic: TrafficEvent[] = [];
    api.on('traffic', (event) => void traffic.push(event));

    const demo = await call(api, 'demo.start', {});
    expect(demo.upstreamUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(demo.proxy).toMatchObject({
      name: 'demo',
      state: 'running',
      config: { mode: 'record', upstreamUrl: demo.upstreamUrl, cacheDir: join(dataDir, 'demo-cassette') },
    });

    const calls = (): TrafficEvent[] => traffic.filter((e) => e.method === 'tools/call');
    await expect.poll(() => calls().length, { timeout: 15_000 }).toBe(TOOLS.length);
    expect(traffic.length).toBeGreaterThanOrEqual(5);
    expect(traffic.every((e) => e.proxyId === demo.proxy.id)).toBe(true);
    expect(traffic.map((e) => e.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    const byTool = (tool: string): TrafficEvent | undefined => calls().find((e) => e.tool === tool);
    // events arrive when each exchange is on disk, which may swap neighbours; the agent's call order is the seq order
    expect([...calls()].sort((a, b) => a.seq - b.seq).map((e) => e.tool)).toEqual(TOOLS);

    expect(textOf(result(byTool('weather')))).toBe('Sunny and 21 °C in Lisbon');
    const image = (result(byTool('logo')).content as Array<{ type: string; data: string; mimeType: string }>)[0];
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(result(byTool('stats')).structuredContent).toMatchObject({
      calls: expect.any(Number),
      uptimeS: expect.any(Number),
    });
    const longTask = byTool('long-task') as TrafficEvent;
    expect(textOf(result(longTask))).toBe('finished 5 steps');
    expect(longTask.stream.filter((m) => 'method' in m && m.method === 'notifications/progress')).toHaveLength(5);
    const summarize = byTool('summarize') as TrafficEvent;
    expect(textOf(result(summarize))).toBe('Summary: A calm, sunny day — nothing to worry about.');
    expect(summarize.stream.map((m) => ('method' in m ? m.method : 'reply'))).toEqual([
      'sampling/createMessage',
      'reply',
    ]);

    // everything was recorded into the demo cassette
    const cassette = join(dataDir, 'demo-cassette');
    await expect
      .poll(async () => (await distilledFiles(cassette)).filter((f) => f.includes('tools_call_')).length)
      .toBe(TOOLS.length);
    const entries = (await call(api, 'cassettes.list', { dir: cassette })).entries;
    expect(entries.find((e) => e.tool === 'logo')?.preview).toBe('[image image/png]');

    // a second start reuses the server and the proxy, and runs the agent again
    const again = await call(api, 'demo.start', {});
    expect(again).toEqual({ proxy: expect.objectContaining({ id: demo.proxy.id }), upstreamUrl: demo.upstreamUrl });
    await expect.poll(() => calls().length, { timeout: 15_000 }).toBe(2 * TOOLS.length);
    expect(await call(api, 'proxies.list', {})).toHaveLength(1);

    expect(logs.filter((line) => line.startsWith('warn'))).toEqual([]);
    expect(logs).toContain('info: demo agent: long-task reported progress 5 times');
    await controller.close();
    expect(logs.filter((line) => line.startsWith('warn'))).toEqual([]);
    await expect(fetch(demo.upstreamUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('the demo server answers a client directly too', async () => {
    const { api } = await app();
    const demo = await call(api, 'demo.start', {});
    const c = await client(demo.upstreamUrl);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual([...TOOLS, 'schedule']);
    expect(
      textOf(
        await c.client.callTool({
          name: 'schedule',
          arguments: { title: 'Review', when: { date: '2026-03-02' }, attendees: [{ name: 'Ada' }] },
        }),
      ),
    ).toBe('Booked “Review” on 2026-03-02 for 30 min with Ada (normal priority)');
    expect((await c.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['brief']);
    expect((await c.client.readResource({ uri: 'demo://city/Porto' })).contents[0]).toMatchObject({
      text: 'Porto: sunny, 21 °C',
    });
    const progress: number[] = [];
    await c.client.callTool({ name: 'long-task', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    expect(textOf(await c.client.callTool({ name: 'summarize', arguments: { text: 'x' } }))).toBe(
      'Summary: sampled-Summarize in one line: x',
    );
  });

  it('makes a valid PNG', () => {
    const png = demoLogoPng();
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(16); // width
    expect(png.length).toBeLessThan(1024);
  });
});
