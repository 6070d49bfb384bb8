/**
 * A 100 MiB tools/call answer through the built CLI recording as a real process, from a real HTTP server, to a real
 * SDK client — as SSE and as one JSON body. The proxy streams it: its peak RSS (VmHWM, reset before the call through
 * /proc/<pid>/clear_refs) grows by at most 3× the message over what it held before the call, plus 64 MiB; no
 * MaxListenersExceededWarning; the client gets the whole answer, and its entry is on disk when it does.
 *
 * The 64 MiB: V8's young generation (Node 20: up to 3 × 16 MiB semi-spaces, which fill before a scavenge), its
 * allocation pages and the sockets' buffers — what any burst of allocation costs the process, whatever the message.
 * The 3×: the message's text being assembled, that text whole for JSON.parse, and the parsed result (the one copy
 * the recorder needs); nothing else may hold the message whole (before: 8× as SSE, 9× as JSON, 0.9–1.1 GB).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CassetteEntry } from '../../src/shared/cassette/entry.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { bigMessageBytes, bigText, startRawUpstream, type RawUpstream } from '../helpers/raw-upstream.js';
import { startCli, type CliProcess } from '../helpers/procfs.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { skipping } from '../helpers/skip.js';
import { textOf } from '../engine/robustness-helpers.js';

const MIB = 1024 * 1024;
const LINUX = existsSync('/proc/self/clear_refs');
const status = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

let upstream: RawUpstream;
let dir: string;
const open: Array<{ close(): Promise<void> }> = [];
const figures: string[] = [];

beforeAll(async () => {
  upstream = await startRawUpstream();
  dir = await tempDir();
});

afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

afterAll(async () => {
  await upstream?.close();
  await removeTempDirs();
  if (figures.length) console.log(`\nLarge answers through the recording CLI\n${figures.join('\n')}\n`);
});

/** A fresh recording CLI on the shared cassette, and a client that made one 1 MiB call through it (every path warm). */
async function recording(): Promise<{ cli: CliProcess; client: ConnectedClient }> {
  const cli = await startCli(['--url', upstream.url, '--cache', dir]);
  open.push(cli);
  const client = await connectClient(cli.url);
  open.push(client);
  await client.client.callTool({ name: 'big', arguments: { mib: 1 } });
  return { cli, client };
}

describe.skipIf(skipping(!LINUX && 'peak RSS is reset through /proc/<pid>/clear_refs (Linux)', 'a 100 MiB answer'))(
  'a 100 MiB answer through the recording proxy (skipped without /proc/<pid>/clear_refs: not Linux)',
  () => {
    for (const json of [false, true]) {
      it(`as ${json ? 'one JSON body' : 'SSE'}: peak RSS within 3× the message (+64 MiB), the whole answer delivered after its entry is on disk`, async () => {
        const { cli, client } = await recording();
        writeFileSync(`/proc/${cli.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
        const before = status(cli.pid, 'VmRSS');
        let onDiskFirst = false;
        const result = await client.client
          .callTool({ name: 'big', arguments: { mib: 100, json } }, undefined, { timeout: 120_000 })
          .then((r) => {
            onDiskFirst = readdirSync(dir).some(
              (name) =>
                /^\d+ tools_call_big_[0-9a-f]+\.json$/.test(name) &&
                readFileSync(join(dir, name), 'utf8').includes(`"json": ${json}`),
            );
            return r;
          });
        const grew = status(cli.pid, 'VmHWM') - before;
        const message = bigMessageBytes(100, 0);
        figures.push(
          `- ${json ? 'JSON' : 'SSE '}: message ${(message / MIB).toFixed(0)} MiB, RSS ${(before / MIB).toFixed(0)} MiB before, peak +${(grew / MIB).toFixed(0)} MiB (${(grew / message).toFixed(2)}×)`,
        );
        expect(grew).toBeLessThanOrEqual(3 * message + 64 * MIB);
        expect(textOf(result) === bigText(100)).toBe(true);
        expect(onDiskFirst).toBe(true);
        expect(cli.stderr()).not.toContain('MaxListenersExceededWarning');
      }, 180_000);
    }

    it('the entries hold the whole answer, with the result hash of its whole text', () => {
      const entries = readdirSync(dir)
        .filter((name) => /^\d+ tools_call_big_[0-9a-f]+\.json$/.test(name))
        .map(
          (name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CassetteEntry & { arguments: { mib: number } },
        )
        .filter((entry) => entry.arguments.mib === 100);
      expect(entries).toHaveLength(2);
      for (const entry of entries) {
        expect((entry.result.content as Array<{ text: string }>)[0].text === bigText(100)).toBe(true);
        expect(entry.resultHash).toBe(
          createHash('sha256').update(JSON.stringify(entry.result)).digest('hex').slice(0, 16),
        );
      }
    });
  },
);
