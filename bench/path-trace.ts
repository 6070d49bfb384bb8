/**
 * Which engine files one tools/call runs through, per mode: V8 precise coverage (call counts) taken around a single
 * call on a warm proxy (the key already recorded, so record mode skips the write), engine built in <root>/dist.
 *   npm run build:cli && node --import tsx bench/path-trace.ts [root]
 */
import { Session } from 'node:inspector/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './children.js';
import { callRequest } from './cassette-gen.js';
import { LoadClient } from './load.js';
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const { startProxy } = (await import(
  `${root}/dist/main/engine/proxy.js`
)) as typeof import('../src/main/engine/proxy.js');
const canned = await startServer('canned');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const body = [Buffer.from(JSON.stringify(callRequest(0, 1)))];
async function trace(name: string, proxy: Awaited<ReturnType<typeof startProxy>>): Promise<void> {
  const c = new LoadClient(proxy.url, 1);
  await c.handshake();
  await c.run(body, 1, 50);
  await proxy.flush();
  await new Promise((r) => setTimeout(r, 50));
  await session.post('Profiler.takePreciseCoverage');
  await c.run(body, 1, 5000, 1);
  await new Promise((r) => setTimeout(r, 100)); // hooks that run after the answer (recorder, events) are done
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = result
    .filter((s) => s.url.includes(`${root}/dist/`) && s.functions.some((f) => f.ranges[0].count > 0))
    .map((s) => s.url.split('/dist/')[1]);
  console.log(`${name}: ${files.length} files: ${files.sort().join(' ')}`);
  c.close();
  await proxy.close();
}
const dir = await mkdtemp(join(tmpdir(), 'trace-'));
await trace('proxy-only unobserved', await startProxy({ mode: 'proxy-only', upstreamUrl: canned.url }));
const observed = await startProxy({ mode: 'proxy-only', upstreamUrl: canned.url });
observed.events.on('exchange', () => {});
await trace('proxy-only observed', observed);
await trace('record', await startProxy({ mode: 'record', upstreamUrl: canned.url, cacheDir: join(dir, 'rec') }));
await trace('replay hit', await startProxy({ mode: 'replay', cacheDir: join(dir, 'rec') }));
await canned.stop();
process.exit(0);
