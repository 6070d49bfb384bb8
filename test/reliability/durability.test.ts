/**
 * A 200 means it is on disk: a recording proxy (the built CLI, a real process) is SIGKILLed at a random moment while
 * 100 calls are in flight — right after the client got its k-th answer, k drawn from a seeded generator — and every
 * call that was answered must replay from the folder it left; the next start leaves no temp file and no debug file
 * without its entry. Build first (`npm run build:cli`). `DURABILITY_SEED=n` replays other rounds;
 * `DURABILITY_NO_FSYNC=1` runs the same with `--no-fsync` (the answer goes out before the entry is written), which
 * loses answered calls: the test then fails, as it must.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { parseCassetteName } from '../../src/main/engine/cassette/names.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { startCli } from '../helpers/procfs.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const ROUNDS = 6;
const SESSIONS = 10;
const CALLS_PER_SESSION = 10;
const SEED = Number(process.env.DURABILITY_SEED ?? 20261130);

/** mulberry32: a small seeded generator, so that a failing round can be run again as it was */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const textOf = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

const { keep, closeAll } = keeper();
let upstream: SdkServerHandle;
beforeAll(async () => {
  upstream = await startSdkServer();
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

/** Cassette files that should not be there: temp files, and debug files whose distilled entry is missing. */
async function leftovers(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const entries = new Set(
    names.filter((n) => parseCassetteName(n)?.kind === 'entry').map((n) => parseCassetteName(n)?.stem),
  );
  return names.filter(
    (n) =>
      n.startsWith('.rewind-tmp-') ||
      (parseCassetteName(n)?.kind !== 'entry' &&
        parseCassetteName(n)?.key !== undefined &&
        !entries.has(parseCassetteName(n)?.stem)),
  );
}

describe('kill -9 of a recording proxy during 100 concurrent calls', () => {
  it(`every call answered before the kill replays; no orphan files after the next start (${ROUNDS} seeded rounds)`, async () => {
    const random = seeded(SEED);
    let answeredTotal = 0;
    let lostInFlight = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const dir = await tempDir('rewind-kill9-');
      const cli = keep(
        await startCli([
          '--url',
          upstream.url,
          '--cache',
          dir,
          ...(process.env.DURABILITY_NO_FSYNC ? ['--no-fsync'] : []),
        ]),
      );
      const clients: ConnectedClient[] = [];
      for (let i = 0; i < SESSIONS; i++) clients.push(await connectClient(cli.url));
      const killAfter = 1 + Math.floor(random() * (SESSIONS * CALLS_PER_SESSION - 1)); // the answer after which the kill comes
      const answered: string[] = [];
      let killed = false;
      const calls = clients.flatMap((c, s) =>
        Array.from({ length: CALLS_PER_SESSION }, (_, j) => {
          const text = `round ${round} session ${s} call ${j} ${random().toString(36).slice(2)}`;
          return c.client.callTool({ name: 'echo', arguments: { text } }, undefined, { timeout: 20_000 }).then(
            (result) => {
              if (killed) return;
              expect(textOf(result)).toBe(`echo: ${text}`);
              answered.push(text);
              if (answered.length === killAfter) {
                killed = true;
                cli.child.kill('SIGKILL'); // at once, in the same tick as the k-th answer reached this client
              }
            },
            () => undefined, // cut off by the kill
          );
        }),
      );
      await Promise.all(calls);
      expect(await cli.exited).toBe('SIGKILL');
      for (const c of clients) await c.close().catch(() => {});
      answeredTotal += answered.length;
      lostInFlight += SESSIONS * CALLS_PER_SESSION - answered.length;

      // the next start: replay, upstream out of reach
      const replay = keep(await startProxy({ mode: 'replay', cacheDir: dir }));
      expect(await leftovers(dir), `round ${round}`).toEqual([]);
      const reader = keep(await connectClient(replay.url));
      for (const text of answered) {
        const result = await reader.client.callTool({ name: 'echo', arguments: { text } });
        expect(result.isError ?? false, `round ${round}: "${text}" was answered, then lost`).toBe(false);
        expect(textOf(result)).toBe(`echo: ${text}`);
      }
      await closeAll();
    }
    // the kill landed mid-flight: some calls were answered, some were not
    expect(answeredTotal).toBeGreaterThan(0);
    expect(lostInFlight).toBeGreaterThan(0);
  }, 120_000);
});
