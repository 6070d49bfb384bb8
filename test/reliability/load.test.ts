/**
 * Load: 100 concurrent client sessions (real SDK Clients) × 100 tool calls, every call with distinct arguments (a new
 * key), through ONE recording proxy in front of ONE real SDK server (stateful, JSON answers). Then:
 * - every exchange is recorded exactly once (one distilled file per key; tool calls + the one initialize);
 * - replay (upstream stopped) answers a random sample of 500 of them identically to the live answers;
 * - memory stays bounded: once the clients closed their sessions the proxy's SessionRegistry is empty again, the
 *   store holds the recorded entries only, and a second wave of (already recorded) calls does not grow the heap.
 *
 * Sizes: LOAD_CLIENTS / LOAD_CALLS. `npm test` runs the small twin (20 × 25: the same checks on 500 exchanges, in a
 * few seconds); `npm run bench:load` runs the full 100 × 100, where the heap growth per recorded entry is also
 * bounded (on 500 entries GC noise is larger than the figure). The long soak is bench/soak.ts.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { keyFor } from '../../src/main/engine/cassette/keys.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { isDistilled, removeRobustTempDirs, tempDir } from '../engine/robustness-helpers.js';

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 20);
const CALLS = Number(process.env.LOAD_CALLS ?? 25);
/** sessions of the second wave (already-recorded keys of the first clients) */
const WAVE = Math.min(20, CLIENTS);
/** the heap growth per entry is a figure only over many entries: below this, GC noise outweighs it */
const PER_ENTRY_MIN_EXCHANGES = 10_000;
const SAMPLE = 500;
const CALL_TIMEOUT_MS = 30_000;

/** global.gc, or one obtained at run time (vitest's forks do not pass --expose-gc) */
function getGc(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const MB = 1024 * 1024;
const figures: string[] = [];

afterAll(async () => {
  console.log(
    `\nLoad figures (${CLIENTS} clients × ${CALLS} calls)\n| figure | value |\n|---|---|\n${figures.join('\n')}\n`,
  );
  await removeRobustTempDirs();
});

/** a fixed-seed PRNG (mulberry32): the replay sample is the same on every run */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const textFor = (c: number, i: number): string => `client ${c} call ${i}`;

describe(`load: ${CLIENTS} concurrent sessions × ${CALLS} tool calls through one recording proxy`, () => {
  it(
    'records every exchange exactly once, replays them identically, and keeps no per-exchange state',
    { timeout: 120_000 },
    async () => {
      const gc = getGc();
      const heap = (): { heap: number; rss: number } => {
        gc();
        gc();
        const m = process.memoryUsage();
        return { heap: m.heapUsed, rss: m.rss };
      };
      const dir = path.join(await tempDir(), 'cassette');
      let sdk: SdkServerHandle | undefined = await startSdkServer({ json: true });
      let recorder: RunningProxy | undefined = await startProxy({
        mode: 'record',
        upstreamUrl: sdk.url,
        cacheDir: dir,
      });
      let replay: RunningProxy | undefined;
      const clients: ConnectedClient[] = [];
      try {
        // warm-up (JIT, agent sockets, module state), then the baseline
        const warm = await connectClient(recorder.url);
        await warm.client.callTool({ name: 'echo', arguments: { text: 'warm-up' } });
        await warm.close();
        await recorder.flush();
        const before = heap();

        const live = new Map<string, unknown>();
        const t0 = performance.now();
        clients.push(
          ...(await Promise.all(
            Array.from({ length: CLIENTS }, (_, c) => connectClient(recorder!.url, { name: `load-${c}` })),
          )),
        );
        await Promise.all(
          clients.map(async (client, c) => {
            for (let i = 0; i < CALLS; i++) {
              const result = await client.client.callTool(
                { name: 'echo', arguments: { text: textFor(c, i) } },
                undefined,
                { timeout: CALL_TIMEOUT_MS },
              );
              live.set(textFor(c, i), result);
            }
          }),
        );
        const recordMs = performance.now() - t0;
        expect(recorder.endpoint.sessions.size).toBe(CLIENTS); // every client session is known while open
        await Promise.all(clients.splice(0).map((c) => c.close()));
        await recorder.flush();
        const after = heap();
        figures.push(
          `| record: ${CLIENTS * CALLS} tool calls, ${CLIENTS} concurrent sessions | ${recordMs.toFixed(0)} ms (${((CLIENTS * CALLS * 1000) / recordMs).toFixed(0)} calls/s) |`,
        );

        // sessions closed by their clients (DELETE) leave nothing behind, in the proxy and upstream
        expect(recorder.endpoint.sessions.size).toBe(0);
        expect(sdk.sessionIds()).toEqual([]);

        // every exchange recorded exactly once: one distilled file per key
        const names = (await readdir(dir)).filter(isDistilled);
        const perKey = new Map<string, number>();
        for (const name of names) {
          const key = / (.+)\.json$/.exec(name)![1];
          perKey.set(key, (perKey.get(key) ?? 0) + 1);
        }
        const duplicates = [...perKey].filter(([, n]) => n !== 1);
        expect(duplicates).toEqual([]);
        // the tool calls, the warm-up call and one initialize (the same key for every session)
        expect(names.length).toBe(CLIENTS * CALLS + 2);
        expect(perKey.has('initialize')).toBe(true);
        for (let c = 0; c < CLIENTS; c++)
          for (let i = 0; i < CALLS; i++)
            expect(
              perKey.get(
                keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: textFor(c, i) } } }),
              ),
            ).toBe(1);
        // the store holds the recorded entries, nothing else
        expect(recorder.store?.size).toBe(names.length);
        figures.push(
          `| distilled files / distinct keys / duplicates | ${names.length} / ${perKey.size} / ${duplicates.length} |`,
        );

        // a second wave of already-recorded calls (same keys: skipped) must not grow the heap: no per-exchange state
        const wave = await Promise.all(Array.from({ length: WAVE }, () => connectClient(recorder!.url)));
        await Promise.all(
          wave.map(async (client, c) => {
            for (let i = 0; i < CALLS; i++)
              await client.client.callTool({ name: 'echo', arguments: { text: textFor(c, i) } }, undefined, {
                timeout: CALL_TIMEOUT_MS,
              });
          }),
        );
        await Promise.all(wave.map((c) => c.close()));
        await recorder.flush();
        const afterWave = heap();
        expect((await readdir(dir)).filter(isDistilled)).toHaveLength(names.length);
        expect(recorder.endpoint.sessions.size).toBe(0);
        const perEntry = (after.heap - before.heap) / (CLIENTS * CALLS);
        figures.push(
          `| heap after GC: baseline → after recording → after ${WAVE * CALLS} repeated calls | ${(before.heap / MB).toFixed(1)} → ${(after.heap / MB).toFixed(1)} → ${(afterWave.heap / MB).toFixed(1)} MB |`,
        );
        figures.push(
          `| RSS: baseline → after recording → after repeated calls | ${(before.rss / MB).toFixed(0)} → ${(after.rss / MB).toFixed(0)} → ${(afterWave.rss / MB).toFixed(0)} MB |`,
        );
        figures.push(
          `| heap growth per recorded entry (the store's in-memory index) | ${(perEntry / 1024).toFixed(2)} kB |`,
        );
        figures.push(`| SessionRegistry size after the clients closed | ${recorder.endpoint.sessions.size} |`);
        // the index of 10,000 small entries, plus GC noise: a few kB per entry at most (measured 3.4–4.0 kB from run to run)
        if (CLIENTS * CALLS >= PER_ENTRY_MIN_EXCHANGES) expect(perEntry).toBeLessThan(5 * 1024);
        // repeated calls add no entries, so no heap beyond GC noise
        expect(afterWave.heap - after.heap).toBeLessThan(8 * MB);

        // replay with the upstream stopped: a seeded random sample answers exactly as live did
        await recorder.close();
        recorder = undefined;
        await sdk.close();
        sdk = undefined;
        replay = await startProxy({ mode: 'replay', cacheDir: dir });
        expect(replay.store?.size).toBe(names.length);
        const replayers = await Promise.all(Array.from({ length: 10 }, () => connectClient(replay!.url)));
        clients.push(...replayers);
        const next = random(42);
        const sample = Array.from({ length: Math.min(SAMPLE, CLIENTS * CALLS) }, () =>
          textFor(Math.floor(next() * CLIENTS), Math.floor(next() * CALLS)),
        );
        const t1 = performance.now();
        let mismatches = 0;
        await Promise.all(
          replayers.map(async (client, r) => {
            for (let s = r; s < sample.length; s += replayers.length) {
              const result = await client.client.callTool({ name: 'echo', arguments: { text: sample[s] } }, undefined, {
                timeout: CALL_TIMEOUT_MS,
              });
              if (JSON.stringify(result) !== JSON.stringify(live.get(sample[s]))) mismatches++;
              expect(result).toEqual(live.get(sample[s]));
            }
          }),
        );
        figures.push(
          `| replay (upstream stopped): sampled calls / mismatches | ${sample.length} / ${mismatches} (${(performance.now() - t1).toFixed(0)} ms) |`,
        );
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
        await replay?.close();
        await recorder?.close();
        await sdk?.close();
      }
    },
  );
});
