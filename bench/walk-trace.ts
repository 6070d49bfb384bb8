/**
 * The walk of one tools/call through the engine, per mode: from the HTTP entry (`serveMcp`) to its answer and the
 * hooks that run after it. A worker thread (walk-worker.ts) breaks at the entry of every function of the built engine
 * and src/shared and records the engine frames of the stack; the frames give the calls and the returns between files.
 * Printed per mode: the steps (file changes, calls and returns alike), the distinct files, and how many steps go back
 * into a file the walk had already left (with the files that take most of them). A warm proxy, as bench/path-trace.ts
 * (record: the key is already recorded, so nothing is written).
 *   npm run build:cli && node --import tsx bench/walk-trace.ts [--walk] [root]
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startServer } from './children.js';
import { callRequest } from './cassette-gen.js';
import { LoadClient } from './load.js';

/** An engine frame of a stack: its file, and its function's identity (where it starts, its name). */
interface Frame {
  file: string;
  fn: string;
}

const args = process.argv.slice(2);
const showWalk = args.includes('--walk');
const root = args.find((a) => !a.startsWith('--')) ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const dist = `${root}/dist`;
const { startProxy } = (await import(`${dist}/main/engine/proxy.js`)) as typeof import('../src/main/engine/proxy.js');

const worker = new Worker(new URL('./walk-worker.mjs', import.meta.url), { workerData: { dist } });
const replies: Array<(value: unknown) => void> = [];
worker.on('message', (message: unknown) => replies.shift()?.(message));
worker.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
const reply = <T>(): Promise<T> => new Promise((resolve) => replies.push(resolve as (value: unknown) => void));
const ask = <T>(message: string): Promise<T> => {
  const answer = reply<T>();
  worker.postMessage(message);
  return answer;
};

/** The files of the walk, in order (a change of file is a step: a call into another file, or a return to one). */
export function walkOf(events: Frame[][], entry = 'serveMcp'): string[] {
  const isEntry = (f: Frame): boolean => f.fn.endsWith(`:${entry}`);
  const start = events.findIndex((frames) => frames.some(isEntry));
  const walk: string[] = [];
  const step = (file: string): void => void (walk[walk.length - 1] !== file && walk.push(file));
  let previous: Frame[] = [];
  for (const all of start < 0 ? [] : events.slice(start)) {
    const below = all.findIndex(isEntry);
    const frames = below >= 0 ? all.slice(below) : all; // what called the entry is not part of the walk
    let common = 0;
    // the top frame is a new call: at most the frames under it are shared with the previous stack
    while (
      common < previous.length &&
      common < frames.length - 1 &&
      previous[common].fn === frames[common].fn &&
      previous[common].file === frames[common].file
    )
      common++;
    for (let i = previous.length - 2; i >= Math.max(common - 1, 0); i--) step(previous[i].file); // returns
    for (let i = common; i < frames.length; i++) step(frames[i].file); // calls
    previous = frames;
  }
  return walk;
}

function summary(walk: string[]): { steps: number; files: number; back: number; top: string } {
  const seen = new Set<string>();
  const backs = new Map<string, number>();
  for (const file of walk) {
    if (seen.has(file)) backs.set(file, (backs.get(file) ?? 0) + 1);
    seen.add(file);
  }
  const back = [...backs.values()].reduce((a, b) => a + b, 0);
  const top = [...backs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([file, n]) => `${file.replace(/^main\/engine\//, '').replace(/\.js$/, '.ts')} ${n}`)
    .join(', ');
  return { steps: walk.length, files: seen.size, back, top };
}

async function trace(name: string, proxy: Awaited<ReturnType<typeof startProxy>>): Promise<void> {
  const body = [Buffer.from(JSON.stringify(callRequest(0, 1)))];
  const client = new LoadClient(proxy.url, 1);
  await client.handshake();
  await client.run(body, 1, 50);
  await proxy.flush();
  await new Promise((r) => setTimeout(r, 50));
  await ask('arm');
  await client.run(body, 1, 5000, 1);
  await new Promise((r) => setTimeout(r, 100)); // hooks that run after the answer (recorder, events) are done
  const events = await ask<Frame[][]>('disarm');
  const walk = walkOf(events);
  const s = summary(walk);
  console.log(
    `${name}: ${s.steps} steps, ${s.files} files, ${s.back} back into a file already left (${s.top || 'none'})`,
  );
  if (showWalk) console.log(`  ${walk.map((f) => f.replace(/^main\/engine\//, '').replace(/\.js$/, '')).join(' → ')}`);
  client.close();
  await proxy.close();
}

await reply<'ready'>();
const canned = await startServer('canned');
const dir = await mkdtemp(join(tmpdir(), 'walk-'));
await trace('proxy-only, nobody watching', await startProxy({ mode: 'proxy-only', upstreamUrl: canned.url }));
const observed = await startProxy({ mode: 'proxy-only', upstreamUrl: canned.url });
observed.events.on('exchange', () => {});
await trace('proxy-only, observed', observed);
await trace('record', await startProxy({ mode: 'record', upstreamUrl: canned.url, cacheDir: join(dir, 'rec') }));
await trace('replay (hit)', await startProxy({ mode: 'replay', cacheDir: join(dir, 'rec') }));
await trace('hybrid (hit)', await startProxy({ mode: 'hybrid', upstreamUrl: canned.url, cacheDir: join(dir, 'rec') }));
await canned.stop();
await worker.terminate();
process.exit(0);
