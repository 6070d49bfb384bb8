/**
 * Soak: a recording proxy and a replay proxy under steady load for a long time (default 10 minutes), watching for
 * leaks. Not part of the test suite (test/reliability/load.test.ts is the short version).
 *
 *   node --import tsx bench/soak.ts [--minutes N]
 *
 * Process layout (as bench/run.ts): the two proxies run in a child process of their own (this file with --child,
 * started with --expose-gc), so the sampled memory and handles are the proxies' alone; the SDK upstream (stateful,
 * JSON answers) and the load clients (real SDK Clients) run here. Loopback only.
 *
 * Load: 4 record clients (25 ms between calls; 10 % new keys, 90 % keys already recorded) and 4 replay clients
 * (10 ms between calls; keys recorded during the seed phase, all hits). Every client closes its session and opens a
 * new one every 200 calls (session churn). The replay proxy reads the same folder the recorder writes (its watcher
 * indexes new entries as they land).
 *
 * Every 10 s the child reports RSS, heap used after a full GC, active handles and its stores' sizes; this side adds
 * the calls completed and failed. At the end: a table, whether memory grew (median of the first third of the samples
 * vs the last third), written to bench/results/soak.md.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SAMPLE_MS = 10_000;
const CHURN = 200;

interface ChildSample {
  t: number;
  rss: number;
  heap: number;
  handles: number;
  recordEntries: number;
  replayEntries: number;
  recordSessions: number;
  replaySessions: number;
}

// ---------------------------------------------------------------------------------------------------------------
// child: the two proxies

async function child(upstreamUrl: string, dir: string): Promise<void> {
  const { startProxy } = await import('../src/main/engine/proxy.js');
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const warn = (line: string, level: string): void =>
    void (level === 'warn' && process.stderr.write(`soak child: ${line}\n`));
  const recorder = await startProxy({ mode: 'record', upstreamUrl, cacheDir: dir, onLog: warn });
  const replay = await startProxy({ mode: 'replay', cacheDir: dir, onLog: warn });
  process.stdout.write(`URLS ${recorder.url} ${replay.url}\n`);
  const t0 = Date.now();
  const sample = (): void => {
    gc();
    gc();
    const m = process.memoryUsage();
    const s: ChildSample = {
      t: Date.now() - t0,
      rss: m.rss,
      heap: m.heapUsed,
      handles: (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length,
      recordEntries: recorder.store?.size ?? 0,
      replayEntries: replay.store?.size ?? 0,
      recordSessions: recorder.endpoint.sessions.size,
      replaySessions: replay.endpoint.sessions.size,
    };
    process.stdout.write(`STATS ${JSON.stringify(s)}\n`);
  };
  // on request (a line on stdin) and at the end of stdin: exit
  createInterface({ input: process.stdin })
    .on('line', sample)
    .on('close', () => {
      void Promise.all([recorder.close(), replay.close()]).finally(() => process.exit(0));
    });
}

// ---------------------------------------------------------------------------------------------------------------
// parent: upstream, load, sampling, report

const MB = 1024 * 1024;
const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(minutes: number): Promise<void> {
  const { startSdkServer } = await import('../test/fixtures/sdk-server.js');
  const { connectClient } = await import('../test/fixtures/client.js');
  const log = (line: string): void => void process.stderr.write(`soak: ${line}\n`);
  const tmp = await mkdtemp(join(tmpdir(), 'mcp-rewind-soak-'));
  const dir = join(tmp, 'cassette');
  const upstream = await startSdkServer({ json: true });
  const proc = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', upstream.url, dir],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const samples: Array<ChildSample & { calls: number; errors: number; recordCalls: number; replayCalls: number }> = [];
  let waitingSample: ((s: ChildSample) => void) | undefined;
  let urls: [string, string] | undefined;
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (line.startsWith('URLS ')) urls = line.slice(5).split(' ') as [string, string];
    if (line.startsWith('STATS ')) waitingSample?.(JSON.parse(line.slice(6)) as ChildSample);
  });
  const requestSample = (): Promise<ChildSample> =>
    new Promise((resolve) => {
      waitingSample = resolve;
      proc.stdin!.write('sample\n');
    });
  const stopping = { now: false };
  try {
    const started = Date.now();
    while (!urls) {
      if (proc.exitCode !== null || Date.now() - started > 60_000) throw new Error('the proxies did not start');
      await sleep(50);
    }
    const [recordUrl, replayUrl] = urls;

    // seed: 200 keys recorded, then visible to the replay proxy (through its folder watcher)
    const seedKeys = Array.from({ length: 200 }, (_, i) => `seed ${i}`);
    const seeder = await connectClient(recordUrl);
    for (const text of seedKeys) await seeder.client.callTool({ name: 'echo', arguments: { text } });
    await seeder.close();
    await sleep(1_000);
    log(`seeded ${seedKeys.length} keys; running ${minutes} min`);

    let calls = 0;
    let errors = 0;
    let recordCalls = 0;
    let replayCalls = 0;
    let newKey = 0;
    const recorded = [...seedKeys];
    const firstError: string[] = [];
    const loop = async (url: string, pauseMs: number, pick: () => string, replay: boolean): Promise<void> => {
      while (!stopping.now) {
        const c = await connectClient(url);
        try {
          for (let i = 0; i < CHURN && !stopping.now; i++) {
            const text = pick();
            try {
              const result = await c.client.callTool({ name: 'echo', arguments: { text } }, undefined, {
                timeout: 15_000,
              });
              if (JSON.stringify(result).includes(`echo: ${text}`)) {
                calls++;
                if (replay) replayCalls++;
                else {
                  recordCalls++;
                  if (text.startsWith('new ')) recorded.push(text);
                }
              } else throw new Error(`unexpected answer ${JSON.stringify(result).slice(0, 200)}`);
            } catch (error) {
              errors++;
              if (firstError.length < 5)
                firstError.push(`${replay ? 'replay' : 'record'} ${text}: ${(error as Error).message}`);
            }
            await sleep(pauseMs);
          }
        } finally {
          await c.close().catch(() => {});
        }
      }
    };
    const recordPick = (): string =>
      Math.random() < 0.1 ? `new ${newKey++}` : recorded[Math.floor(Math.random() * recorded.length)];
    const replayPick = (): string => seedKeys[Math.floor(Math.random() * seedKeys.length)];
    const loops = [
      ...Array.from({ length: 4 }, () => loop(recordUrl, 25, recordPick, false)),
      ...Array.from({ length: 4 }, () => loop(replayUrl, 10, replayPick, true)),
    ];

    const header =
      '| t (s) | RSS (MB) | heap after GC (MB) | handles | calls/s | record calls/s | replay calls/s | errors | entries (rec / replay) | sessions (rec / replay) |';
    const rule = '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
    process.stdout.write(`${header}\n${rule}\n`);
    const rows: string[] = [];
    const end = Date.now() + minutes * 60_000;
    let last = { calls: 0, recordCalls: 0, replayCalls: 0, at: Date.now() };
    while (Date.now() < end) {
      await sleep(Math.min(SAMPLE_MS, Math.max(0, end - Date.now())));
      const s = await requestSample();
      const now = Date.now();
      const secs = (now - last.at) / 1000;
      const row = {
        ...s,
        calls: calls - last.calls,
        errors,
        recordCalls: recordCalls - last.recordCalls,
        replayCalls: replayCalls - last.replayCalls,
      };
      samples.push(row);
      const line = `| ${(s.t / 1000).toFixed(0)} | ${(s.rss / MB).toFixed(1)} | ${(s.heap / MB).toFixed(1)} | ${s.handles} | ${(row.calls / secs).toFixed(0)} | ${(row.recordCalls / secs).toFixed(0)} | ${(row.replayCalls / secs).toFixed(0)} | ${errors} | ${s.recordEntries} / ${s.replayEntries} | ${s.recordSessions} / ${s.replaySessions} |`;
      rows.push(line);
      process.stdout.write(`${line}\n`);
      last = { calls, recordCalls, replayCalls, at: now };
    }
    stopping.now = true;
    await Promise.all(loops);

    // the verdict: first third vs last third (medians)
    const third = Math.max(1, Math.floor(samples.length / 3));
    const first = samples.slice(0, third);
    const lastThird = samples.slice(-third);
    const m = (xs: typeof samples, f: (s: ChildSample) => number): number => median(xs.map(f));
    const heapA = m(first, (s) => s.heap);
    const heapB = m(lastThird, (s) => s.heap);
    const rssA = m(first, (s) => s.rss);
    const rssB = m(lastThird, (s) => s.rss);
    const handlesA = m(first, (s) => s.handles);
    const handlesB = m(lastThird, (s) => s.handles);
    const entriesA = m(first, (s) => s.recordEntries + s.replayEntries);
    const entriesB = m(lastThird, (s) => s.recordEntries + s.replayEntries);
    const perEntry = entriesB > entriesA ? (heapB - heapA) / (entriesB - entriesA) : NaN;
    const grew = (a: number, b: number, slack: number): boolean => b > a * 1.2 && b - a > slack;
    const heapGrew = grew(heapA, heapB, 5 * MB);
    const verdict = [
      `- heap after GC, median first third → last third: ${(heapA / MB).toFixed(1)} → ${(heapB / MB).toFixed(1)} MB (${heapGrew ? '**grew**' : 'stable'}; >20 % and >5 MB counts as growth)`,
      `- RSS: ${(rssA / MB).toFixed(1)} → ${(rssB / MB).toFixed(1)} MB (${grew(rssA, rssB, 20 * MB) ? '**grew**' : 'stable'})`,
      `- active handles: ${handlesA} → ${handlesB} (${handlesB > handlesA + 10 ? '**grew**' : 'stable'})`,
      `- store entries (both proxies' in-memory indexes, which grow with new keys by design): ${entriesA} → ${entriesB}${Number.isFinite(perEntry) ? `; heap change per new index entry ${(perEntry / 1024).toFixed(2)} kB` : ''}`,
      `- calls: ${calls} answered (${recordCalls} record, ${replayCalls} replay), ${errors} failed${firstError.length ? `; first failures: ${firstError.join(' / ')}` : ''}`,
    ];
    const md = [
      `# mcp-rewind soak — ${new Date().toISOString()}`,
      '',
      `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${minutes} min, sampled every ${SAMPLE_MS / 1000} s; proxies in a child process of their own (figures below are that process's); 4 record clients (10 % new keys) + 4 replay clients, new session every ${CHURN} calls; SDK upstream stateful JSON.`,
      '',
      header,
      rule,
      ...rows,
      '',
      '## Verdict',
      '',
      ...verdict,
      '',
    ].join('\n');
    process.stdout.write(`\n${verdict.join('\n')}\n`);
    const out = fileURLToPath(new URL('./results/', import.meta.url));
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'soak.md'), md);
    log(`written to ${join(out, 'soak.md')}`);
  } finally {
    stopping.now = true;
    proc.stdin!.end();
    await new Promise<void>((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', () => resolve())));
    await upstream.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1], args[2]);
else {
  const at = args.indexOf('--minutes');
  const minutes = at >= 0 ? Number(args[at + 1]) : 10;
  if (!(minutes > 0)) throw new Error('--minutes N: a positive number');
  await main(minutes);
  process.exit(0);
}
