import { afterEach, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import {
  startSdkServer,
  type SdkServerHandle,
  FIXTURE_SERVER_NAME,
  FIXTURE_SERVER_INSTRUCTIONS,
} from '../fixtures/sdk-server.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
async function upstream(options: Parameters<typeof startSdkServer>[0] = {}): Promise<SdkServerHandle> {
  const server = await startSdkServer(options);
  open.push(server);
  return server;
}
async function proxy(options: ProxyOptions): Promise<RunningProxy> {
  const p = await startProxy(options);
  open.push(p);
  return p;
}
async function client(url: string): Promise<ConnectedClient> {
  const c = await connectClient(url);
  open.push(c);
  return c;
}

/** The non-streaming part of the fixture's surface, as a client sees it. */
async function session(c: ConnectedClient) {
  return {
    server: c.client.getServerVersion(),
    instructions: c.client.getInstructions(),
    tools: await c.client.listTools(),
    echo: await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    add: await c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }),
    fail: await c.client.callTool({ name: 'fail', arguments: {} }),
    resources: await c.client.listResources(),
    resource: await c.client.readResource({ uri: 'fixture://hello' }),
    prompts: await c.client.listPrompts(),
    prompt: await c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
  };
}

describe.each([
  { stateless: false, json: false },
  { stateless: false, json: true },
  { stateless: true, json: false },
  { stateless: true, json: true },
])('record, stop the upstream, replay (stateless=$stateless json=$json)', (variant) => {
  it('gives the client exactly what the live server gave', async () => {
    const server = await upstream(variant);
    const cacheDir = await tempDir();
    const recording = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const recordingClient = await client(recording.url);
    const live = await session(recordingClient);
    expect(live.server?.name).toBe(FIXTURE_SERVER_NAME);
    expect(live.add.structuredContent).toEqual({ sum: 42 });
    await recordingClient.close();
    await recording.close();
    await server.close();

    const replaying = await proxy({ mode: 'replay', cacheDir });
    const replayed = await session(await client(replaying.url));
    expect(replayed).toEqual(live);
    expect(replayed.instructions).toBe(FIXTURE_SERVER_INSTRUCTIONS);
  });
});

describe('record mode', () => {
  it('writes the four files per exchange and skips keys already cached', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    const first = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const c1 = await client(first.url);
    await c1.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await c1.close();
    await first.close();
    const files = await readdir(cacheDir);
    const echo = (await distilledFiles(cacheDir)).find((f) => f.includes('tools_call_echo_')) as string;
    const stem = echo.slice(0, -'.json'.length);
    expect(files).toEqual(
      expect.arrayContaining([`${stem}.json`, `${stem}.req.json`, `${stem}.res.json`, `${stem}.res-head.json`]),
    );

    const before = await distilledFiles(cacheDir);
    const second = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const c2 = await client(second.url);
    await c2.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await c2.client.callTool({ name: 'echo', arguments: { text: 'b' } });
    await c2.close();
    await second.close();
    const after = await distilledFiles(cacheDir);
    expect(server.calls.filter((c) => c.tool === 'echo')).toHaveLength(3); // record forwards everything
    expect(after.length).toBe(before.length + 1); // only echo "b" is new
    expect(after.filter((f) => f.includes('tools_call_echo_'))).toHaveLength(2);
  });

  it('groups identical results into one entry and adds an entry when the result changes', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    const recording = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const c = await client(recording.url);
    await c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    server.setEchoPrefix('changed: ');
    await c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await recording.flush();
    expect((await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_echo_'))).toHaveLength(2);

    // replay walks the recorded results in order, then keeps the last
    await recording.close();
    const replaying = await proxy({ mode: 'replay', cacheDir });
    const r = await client(replaying.url);
    const texts = [];
    for (let i = 0; i < 3; i++)
      texts.push(
        ((await r.client.callTool({ name: 'echo', arguments: { text: 'x' } })).content as Array<{ text: string }>)[0]
          .text,
      );
    expect(texts).toEqual(['echo: x', 'changed: x', 'changed: x']);
  });

  it('hashes only --result-hash-path minus --result-hash-ignore when grouping', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    // counter returns "count N": volatile. Ignoring the content makes every result the same for grouping.
    const recording = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir, resultHashIgnore: ['content'] });
    const c = await client(recording.url);
    for (let i = 0; i < 3; i++) await c.client.callTool({ name: 'counter', arguments: {} });
    await recording.flush();
    expect((await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_counter_'))).toHaveLength(1);

    const other = await tempDir();
    const plain = await proxy({
      mode: 'record',
      upstreamUrl: server.url,
      cacheDir: other,
      resultHashPath: 'content.0',
      resultHashIgnore: [],
    });
    const c2 = await client(plain.url);
    for (let i = 0; i < 3; i++) await c2.client.callTool({ name: 'counter', arguments: {} });
    await plain.flush();
    expect((await distilledFiles(other)).filter((f) => f.includes('tools_call_counter_'))).toHaveLength(3);
  });
});

describe('hybrid mode', () => {
  it('serves hits from the cassette and forwards and records only the misses', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    const recording = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const c1 = await client(recording.url);
    await c1.client.callTool({ name: 'echo', arguments: { text: 'cached' } });
    await c1.close();
    await recording.close();
    const callsAfterRecording = server.calls.length;
    const filesAfterRecording = await distilledFiles(cacheDir);

    const hybrid = await proxy({ mode: 'hybrid', upstreamUrl: server.url, cacheDir });
    const c2 = await client(hybrid.url);
    expect(await c2.client.callTool({ name: 'echo', arguments: { text: 'cached' } })).toEqual({
      content: [{ type: 'text', text: 'echo: cached' }],
    });
    expect(server.calls.length).toBe(callsAfterRecording); // a hit never reaches the server
    expect(await c2.client.callTool({ name: 'echo', arguments: { text: 'fresh' } })).toEqual({
      content: [{ type: 'text', text: 'echo: fresh' }],
    });
    expect(server.calls.length).toBe(callsAfterRecording + 1);
    await hybrid.flush();
    const filesAfterHybrid = await distilledFiles(cacheDir);
    expect(filesAfterHybrid.length).toBe(filesAfterRecording.length + 1);
    expect(filesAfterHybrid.filter((f) => !filesAfterRecording.includes(f))[0]).toMatch(
      /^\d+ tools_call_echo_[0-9a-f]{16}\.json$/,
    );
    await c2.close();
    await hybrid.close();
    await server.close();

    // the cassette grew: replay alone now answers both
    const replaying = await proxy({ mode: 'replay', cacheDir });
    const c3 = await client(replaying.url);
    expect(await c3.client.callTool({ name: 'echo', arguments: { text: 'fresh' } })).toEqual({
      content: [{ type: 'text', text: 'echo: fresh' }],
    });
  });
});

describe('proxy-only mode', () => {
  it('forwards everything and writes nothing', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url, cacheDir });
    const c = await client(p.url);
    const exchanges: string[] = [];
    p.events.on('exchange', (e) => exchanges.push(`${e.method}:${e.source}`));
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'p' } })).toEqual({
      content: [{ type: 'text', text: 'echo: p' }],
    });
    await c.client.callTool({ name: 'echo', arguments: { text: 'p' } });
    expect(server.calls).toHaveLength(2);
    expect(exchanges).toEqual(['tools/call:upstream', 'tools/call:upstream']);
    expect(await readdir(cacheDir)).toEqual([]);
    expect(p.store).toBeUndefined();
  });
});
