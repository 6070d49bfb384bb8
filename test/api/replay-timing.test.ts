/**
 * The app's per-proxy replay timing (the proxy configuration's `replayTiming`, the New proxy dialog's field): checked
 * with the form's label, kept with the proxy, and used by its replay — the recorded latency comes back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { proxyConfigIssues } from '../../src/shared/proxy-config.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { distilledFiles, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, textOf, upstream } from './harness.js';

afterEach(cleanup);

describe('api: a replay proxy with a replay timing', () => {
  it('refuses a timing that is not one, naming the field', async () => {
    expect(proxyConfigIssues({ mode: 'replay', cacheDir: '/x', replayTiming: 'slowly' })).toEqual({
      replayTiming: 'none, recorded, or x<speed> (e.g. x2: twice as fast, x0.5: half as fast)',
    });
    const { api } = await app();
    expect(
      await failure(
        call(api, 'proxies.create', { mode: 'replay', cacheDir: await tempDir(), replayTiming: 'slowly' } as never),
      ),
    ).toMatch(/^Replay timing: none, recorded, or x<speed>/);
  });

  it('keeps the timing with the proxy, and replays the recorded latency with it', async () => {
    // a cassette with one streamed call, recorded through a proxy
    const server = await upstream();
    const cacheDir = await tempDir();
    const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const c = await client(recorder.url);
    await c.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
    await recorder.flush();
    await recorder.close();

    const { api } = await app();
    const info = await call(api, 'proxies.create', { mode: 'replay', cacheDir, replayTiming: 'x0.01' } as never);
    expect(info.config).toMatchObject({ replayTiming: 'x0.01' });
    const replaying = await client(info.url as string);
    const started = performance.now();
    expect(
      textOf(
        await replaying.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, {
          onprogress: () => {},
        }),
      ),
    ).toBe('done 2');
    // x0.01: a hundred times the recorded delay of the answer
    const file = (await distilledFiles(cacheDir)).find((f) => f.includes('tools_call_progress_')) as string;
    const { timing } = JSON.parse(await readFile(join(cacheDir, file), 'utf8')) as { timing: { answerMs: number } };
    expect(performance.now() - started).toBeGreaterThanOrEqual(timing.answerMs * 100 * 0.9);
  });
});
