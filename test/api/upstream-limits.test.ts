/**
 * Each of the app's proxies has the CLI's upstream limits (the New proxy form's "Upstream timeout" and "Upstream max
 * time", ProxyConfig's upstreamTimeoutS / upstreamMaxTimeS), through the UI API: a real AppController behind the real
 * handler table, a real HTTP upstream that never answers, a real SDK client on the proxy.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { TrafficEvent } from '../../src/shared/api.js';
import { ErrorCode } from '../../src/shared/jsonrpc.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { distilledFiles, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, keep, textOf } from './harness.js';

afterEach(cleanup);

describe('api: a proxy’s upstream limits', () => {
  it('upstreamTimeoutS 2: a call the upstream never answers gets -32005 naming the limit, is not recorded, and progress keeps a call alive', async () => {
    const { api, dataDir } = await app();
    const upstream = keep(await startRawUpstream());
    const cacheDir = await tempDir();
    const traffic: TrafficEvent[] = [];
    api.on('traffic', (event) => void traffic.push(event));
    const info = await call(api, 'proxies.create', {
      mode: 'record',
      upstreamUrl: upstream.url,
      cacheDir,
      upstreamTimeoutS: 2,
      upstreamMaxTimeS: 30,
    });
    expect(info).toMatchObject({ state: 'running', config: { upstreamTimeoutS: 2, upstreamMaxTimeS: 30 } });
    const c = await client(info.url as string);
    const options = { timeout: 30_000, onprogress: () => {}, resetTimeoutOnProgress: true };
    const [hang, progress] = await Promise.all([
      c.client.callTool({ name: 'hang', arguments: {} }, undefined, options).then(
        () => undefined,
        (error: Error) => error,
      ),
      c.client.callTool({ name: 'progress', arguments: { seconds: 4 } }, undefined, options),
    ]);
    expect(hang).toBeInstanceOf(McpError);
    expect((hang as McpError).code).toBe(ErrorCode.UpstreamUnavailable);
    expect(hang?.message).toContain('no answer and no progress within the per-call timeout (2 s)');
    expect(textOf(progress)).toBe('done');
    await expect.poll(() => traffic.find((e) => e.tool === 'hang')?.source).toBe('proxy');
    await expect
      .poll(async () => (await distilledFiles(cacheDir)).some((f) => f.includes('tools_call_progress_')))
      .toBe(true);
    expect((await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_hang'))).toEqual([]);
    // kept for the next start, as the rest of its configuration
    await expect
      .poll(
        async () =>
          JSON.parse(await readFile(join(dataDir, 'workspace.json'), 'utf8').catch(() => '{}')) as {
            proxies?: Array<{ config: object }>;
          },
      )
      .toMatchObject({ proxies: [{ config: { upstreamTimeoutS: 2, upstreamMaxTimeS: 30 } }] });
  });

  it('refuses a limit out of range, naming the form’s field', async () => {
    const { api } = await app();
    const upstream = keep(await startRawUpstream());
    expect(
      await failure(call(api, 'proxies.create', { mode: 'record', upstreamUrl: upstream.url, upstreamTimeoutS: -1 })),
    ).toBe('Upstream timeout: seconds from 0 (no limit) to 86400');
    expect(
      await failure(
        call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: upstream.url, upstreamMaxTimeS: 1e9 }),
      ),
    ).toBe('Upstream max time: seconds from 0 (no limit) to 604800');
  });
});
