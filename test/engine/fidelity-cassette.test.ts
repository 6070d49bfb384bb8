/**
 * Error entries through the rest of the cassette's life: the third-party server (server-everything) three ways,
 * `verify` (a recorded error answered again alike is no drift), single-file export replayed, HAR export, and the
 * refusals a cassette files (per kind, once).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportHar, exportSingleFile } from '../../src/main/engine/cassette/export.js';
import { verifyCassette } from '../../src/main/engine/verify/verify.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startEverything } from '../fixtures/everything.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';
import { outcome, rawPost, threeWays } from '../helpers/three-ways.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

/** Records a session with an unknown tool, a missing resource and a good call against the SDK fixture server. */
async function recordErrors(): Promise<{ cacheDir: string; server: Awaited<ReturnType<typeof startSdkServer>> }> {
  const server = keep(await startSdkServer());
  const cacheDir = await tempDir();
  const proxy = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
  const c = await connectClient(proxy.url);
  await outcome(c.client.callTool({ name: 'no-such-tool', arguments: {} }));
  await outcome(c.client.readResource({ uri: 'fixture://nope' }));
  await c.client.callTool({ name: 'echo', arguments: { text: 'ok' } });
  await c.close();
  await proxy.flush();
  await proxy.close();
  return { cacheDir, server };
}

describe('a third-party server (server-everything)', () => {
  it('its errors and results come back identical through record and replay', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startEverything('streamableHttp'),
      async (url) => {
        const c = await connectClient(url);
        try {
          return [
            await outcome(c.client.callTool({ name: 'echo', arguments: { message: 'everything' } })),
            await outcome(c.client.callTool({ name: 'no-such-tool', arguments: {} })),
            await outcome(c.client.callTool({ name: 'get-sum', arguments: { a: 'not a number', b: 2 } })),
            await outcome(c.client.getPrompt({ name: 'no-such-prompt' })),
          ];
        } finally {
          await c.close();
        }
      },
    );
    expect(direct.filter((o) => 'error' in o).length).toBeGreaterThan(0);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('error entries in the cassette', () => {
  it('verify: a recorded error the server answers again alike is no drift', async () => {
    const { cacheDir, server } = await recordErrors();
    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: server.url });
    expect(report.results.filter((r) => r.status === 'drift')).toEqual([]);
    expect(report.results.map((r) => r.method)).toEqual(expect.arrayContaining(['tools/call', 'resources/read']));
  });

  it('a single-file export replays the errors exactly; HAR carries them as JSON-RPC error bodies', async () => {
    const { cacheDir } = await recordErrors();
    const file = join(await tempDir(), 'cassette.json');
    await writeFile(file, JSON.stringify(await exportSingleFile(cacheDir)));
    const replaying = keep(await startProxy({ mode: 'replay', cacheDir: file }));
    const c = keep(await connectClient(replaying.url));
    const live = await outcome(c.client.readResource({ uri: 'fixture://nope' }));
    expect(live).toMatchObject({ error: { code: -32602 } });
    const folder = keep(await startProxy({ mode: 'replay', cacheDir }));
    const c2 = keep(await connectClient(folder.url));
    expect(await outcome(c2.client.readResource({ uri: 'fixture://nope' }))).toEqual(live);

    const har = await exportHar(cacheDir);
    const bodies = har.log.entries.map((e) => e.response.content.text ?? '');
    expect(bodies.some((b) => b.includes('"error"') && b.includes('-32602'))).toBe(true);
  });

  it('refusals of whole requests are filed once per kind, and replay refuses alike', async () => {
    const server = keep(await startSdkServer());
    const cacheDir = await tempDir();
    const proxy = keep(await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir }));
    const h = { 'mcp-protocol-version': '2025-11-25' };
    const direct = [
      await rawPost(proxy.url, { jsonrpc: '2.0', id: null, method: 'tools/list' }, h),
      await rawPost(proxy.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...h, 'mcp-session-id': 'gone' }),
    ];
    await rawPost(proxy.url, { jsonrpc: '2.0', id: null, method: 'ping' }, h); // the same kind again: filed once
    await proxy.flush();
    const refusals = (await distilledFiles(cacheDir)).filter((f) => f.includes('refusal_'));
    expect(refusals.map((f) => f.replace(/^\d+ /, ''))).toEqual([
      'refusal_invalid_message.json',
      'refusal_session_not_found.json',
    ]);
    const entry = JSON.parse(await readFile(join(cacheDir, refusals[0]), 'utf8'));
    expect(entry).toMatchObject({
      $rewind: 1,
      refusal: 'invalid-message',
      status: 400,
      error: { code: expect.any(Number) },
    });
    const replaying = keep(await startProxy({ mode: 'replay', cacheDir }));
    const replayed = [
      await rawPost(replaying.url, { jsonrpc: '2.0', id: null, method: 'tools/list' }, h),
      await rawPost(replaying.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...h, 'mcp-session-id': 'gone' }),
    ];
    expect(replayed).toEqual(direct);
  });
});
