import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { RecordingSwitch } from '../../src/main/engine/recording-switch.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

// An attached proxy records through a RecordingSwitch (the app switches it on): its cassette must carry the debug
// files that verify and HAR export read, as the recorder's own does (the hooks say themselves that they keep them).
describe('recording through a RecordingSwitch', () => {
  it('writes .req.json, .res.json and .res-head.json beside each entry, with the request and the raw answer', async () => {
    const server = await startSdkServer();
    open.push(server);
    const dir = await tempDir();
    const recording = new RecordingSwitch(() => {});
    const proxy = await startProxy({
      mode: 'proxy-only',
      upstreamUrl: server.url,
      rules: { overlay: { tools: [], passthrough: true } },
      extraHooks: [recording],
    });
    open.push(proxy, recording);
    await recording.to(dir);
    const c = await connectClient(proxy.url);
    open.push(c);
    await c.client.callTool({ name: 'echo', arguments: { text: 'kept' } });
    await recording.flush();
    const files = await readdir(dir);
    const stem = files.find((f) => /tools_call_echo_.*\.json$/.test(f) && !/\.(req|res|res-head)\.json$/.test(f));
    expect(stem, files.join(', ')).toBeDefined();
    const base = stem!.replace(/\.json$/, '');
    expect(files).toEqual(expect.arrayContaining([`${base}.req.json`, `${base}.res.json`, `${base}.res-head.json`]));
    const req = JSON.parse(await readFile(join(dir, `${base}.req.json`), 'utf8'));
    expect(req.body).toMatchObject({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'kept' } } });
    expect(await readFile(join(dir, `${base}.res.json`), 'utf8')).toContain('kept');
  });
});
