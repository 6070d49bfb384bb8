/**
 * mcp-rewind at scale (issue 11), side by side at 1k, 10k, 100k and 300k cassette entries: time until the port answers
 * and until the cassette is fully indexed, RSS, hit / miss / GET throughput, hits p50 alone and under a concurrent miss
 * storm; export time and peak RSS (100k entries, 60k × 10 kB, and 300k in a full run); record p50 with durability
 * (fsync before the answer) on and off.
 *   npm run bench                 (bench/run.ts, then this)
 *   node --import tsx bench/scale.ts            BENCH_QUICK=1 …  (1k and 10k only, short phases)
 * Every server is a child process of its own (dist/ engine, as `npm run bench` builds it); this process is the loader.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callRequest, generateCassette } from './cassette-gen.js';
import { startServer, type Child } from './children.js';
import { engineKind, engineLabel } from './engine.js';
import { LoadClient } from './load.js';
import { save } from './report.js';
import { scaleSummary, type ExportRow, type RecordRow, type SizeRow } from './scale-report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SIZES = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000, 300_000];
const PHASE_MS = QUICK ? 500 : 1500;
const SAMPLE = 20_000; // keys a run rotates over, spread across the whole cassette
/** an export must also complete with V8's heap this small: its memory does not grow with the cassette */
const EXPORT_HEAP_MB = 128;
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const REPO = fileURLToPath(new URL('..', import.meta.url));

const kb = (status: string, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
const procStatus = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const rssMb = (pid: number): number => kb(procStatus(pid), 'VmRSS') / 1024;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') as Record<string, unknown> }),
      );
    });
    req.on('error', () => resolve(undefined));
  });
}

interface StartedReplay {
  pid: number;
  url: string;
  portMs: number;
  indexedMs: number;
  stop(): Promise<void>;
}

/** A replay proxy on a cassette, timed from the spawn: when its port answers, when its cassette is fully indexed. */
async function startReplay(dir: string): Promise<StartedReplay> {
  const port = await freePort();
  const script = join(REPO, 'bench/servers/proxy.ts');
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', script, 'replay', dir], {
    stdio: ['pipe', 'ignore', 'inherit'],
    env: { ...process.env, BENCH_PORT: String(port) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const health = `http://127.0.0.1:${port}/healthcheck`;
  let portMs = NaN;
  for (;;) {
    const answer = await getJson(health);
    if (answer && Number.isNaN(portMs)) portMs = performance.now() - t0;
    if ((answer?.body.cassette as { indexed?: boolean } | undefined)?.indexed) break;
    if (child.exitCode !== null) throw new Error(`replay proxy on ${dir} exited`);
    await sleep(answer ? 10 : 2);
  }
  return {
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}/mcp`,
    portMs,
    indexedMs: performance.now() - t0,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** GET /mcp round trips per second (a stream replay would open; with nothing to push: 405), over keep-alive connections. */
async function getRate(url: string, concurrency: number, durationMs: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  let done = 0;
  const deadline = performance.now() + durationMs;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const req = http.get(
          {
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            agent,
            headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', () => resolve());
      });
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return (done * 1000) / (performance.now() - t0);
}

const sample = (size: number, count: number, offset = 0): Buffer[] => {
  const n = Math.min(size, count);
  return Array.from({ length: n }, (_, k) =>
    Buffer.from(JSON.stringify(callRequest(offset + Math.floor((k * size) / n), k + 1))),
  );
};

async function measureSize(dir: string, size: number): Promise<SizeRow> {
  const proxy = await startReplay(dir);
  try {
    const rss = rssMb(proxy.pid);
    const client = new LoadClient(proxy.url, 32);
    await client.handshake();
    const hits = sample(size, SAMPLE);
    await client.run(hits.slice(0, 64), 8, 60_000, 2000); // the loader's own warm-up (JIT), on 64 keys
    const cold = await client.run(hits, 32, 60_000, hits.length); // each key once: read from disk on first use
    const warm = await client.run(hits, 32, PHASE_MS);
    // a replay miss is a JSON-RPC error answer: what a miss body expects
    const missBodies = Array.from({ length: 4096 }, (_, i) => ({
      body: Buffer.from(JSON.stringify(callRequest(size + 10 + i, i + 1))),
      expect: 'error' as const,
    }));
    const misses = await client.run(missBodies, 32, PHASE_MS);
    const getRps = await getRate(proxy.url, 32, PHASE_MS);
    const alone = await client.run(hits, 1, PHASE_MS);
    const storm = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new LoadClient(proxy.url, 8);
        await c.handshake();
        return c;
      }),
    );
    // the same load of hits instead, for comparison: a miss must cost no more than a hit
    const [underHits] = await Promise.all([
      client.run(hits, 1, PHASE_MS),
      ...storm.map((c) => c.run(hits, 8, PHASE_MS)),
    ]);
    const [underStorm, ...stormRuns] = await Promise.all([
      client.run(hits, 1, PHASE_MS),
      ...storm.map((c) => c.run(missBodies, 8, PHASE_MS)),
    ]);
    for (const c of [client, ...storm]) c.close();
    return {
      size,
      portMs: proxy.portMs,
      indexedMs: proxy.indexedMs,
      rssMb: rss,
      coldHitRps: cold.rps,
      hitRps: warm.rps,
      missRps: misses.rps,
      getRps,
      hitP50: alone.p50Ms,
      hitP50Hits: underHits.p50Ms,
      hitP50Storm: underStorm.p50Ms,
      stormRps: stormRuns.reduce((n, r) => n + r.rps, 0),
      errors: cold.errors + warm.errors + alone.errors + underStorm.errors,
    };
  } finally {
    await proxy.stop();
  }
}

/**
 * `mcp-rewind export --out --har` of a cassette (the built CLI), timed, its peak RSS read from /proc while it runs;
 * `heapMb`: with V8's heap limited to that (left alone, V8 lets a busy heap grow long before it collects).
 */
async function measureExport(what: string, dir: string, out: string, heapMb?: number): Promise<ExportRow> {
  const json = join(out, `${what.replace(/\W+/g, '-')}.json`);
  const har = `${json.slice(0, -5)}.har`;
  const t0 = performance.now();
  const heap = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const child = spawn(
    process.execPath,
    [...heap, join(REPO, 'bin/mcp-rewind.js'), 'export', '--cache', dir, '--out', json, '--har', har],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let peak = 0;
  while (child.exitCode === null) {
    const hwm = kb(procStatus(child.pid as number), 'VmHWM');
    if (Number.isFinite(hwm)) peak = Math.max(peak, hwm / 1024);
    await Promise.race([sleep(20), exited]);
  }
  const code = await exited;
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) log(`bench: export of ${what} failed (${code}): ${stderr.trim().split('\n').pop()}`);
  const size = async (file: string): Promise<number> =>
    ((await stat(file).catch(() => undefined))?.size ?? NaN) / 1024 / 1024;
  const row = {
    what,
    heapMb,
    seconds,
    peakRssMb: peak,
    jsonMb: await size(json),
    harMb: await size(har),
    ok: code === 0,
  };
  await rm(json, { force: true });
  await rm(har, { force: true });
  return row;
}

/** Record p50 (1 connection, every call a new key, so every call writes an entry) and throughput, fsync on and off. */
async function measureRecord(tmp: string): Promise<RecordRow[]> {
  const canned = await startServer('canned');
  const rows: RecordRow[] = [];
  const proxies: Child[] = [];
  try {
    for (const durable of [true, false]) {
      const proxy = await startServer('proxy', [
        'record',
        canned.url,
        join(tmp, `record-${durable ? 'fsync' : 'nofsync'}`),
        ...(durable ? [] : ['--no-fsync']),
      ]);
      proxies.push(proxy);
      rows.push({ durable, p50: [], p99: [], rps: [] });
    }
    const clients = await Promise.all(
      proxies.map(async (p) => {
        const c = new LoadClient(p.url, 32);
        await c.handshake();
        return c;
      }),
    );
    const rounds = QUICK ? 2 : 6;
    const perRound = QUICK ? 200 : 400;
    let next = 0;
    const fresh = (count: number): Buffer[] =>
      Array.from({ length: count }, () => Buffer.from(JSON.stringify(callRequest(1_000_000 + next, ++next))));
    for (let round = 0; round < rounds; round++) {
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        const r = await clients[i].run(fresh(perRound), 1, 60_000, perRound);
        rows[i].p50.push(r.p50Ms);
        rows[i].p99.push(r.p99Ms);
        const t = await clients[i].run(fresh(perRound * 4), 32, 60_000, perRound * 4);
        rows[i].rps.push(t.rps);
      }
    }
    for (const c of clients) c.close();
  } finally {
    await Promise.all([...proxies, canned].map((c) => c.stop()));
  }
  return rows;
}

async function main(): Promise<void> {
  const started = performance.now();
  process.env.BENCH_ENGINE = engineKind();
  const tmp = await mkdtemp(join(tmpdir(), 'mcp-rewind-scale-'));
  log(`bench scale: ${engineLabel()}; sizes ${SIZES.join(', ')}; cassettes in ${tmp}`);
  try {
    const dirs = new Map<number, string>();
    for (const size of SIZES) {
      const dir = join(tmp, `c${size}`);
      const t = performance.now();
      await generateCassette(dir, size);
      dirs.set(size, dir);
      log(`bench scale: ${size} entries written (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    }
    const rows: SizeRow[] = [];
    for (const size of SIZES) {
      rows.push(await measureSize(dirs.get(size) as string, size));
      const r = rows.at(-1) as SizeRow;
      log(
        `bench scale: ${size}: port ${r.portMs.toFixed(0)} ms, indexed ${r.indexedMs.toFixed(0)} ms, RSS ${r.rssMb.toFixed(0)} MB, hits ${r.hitRps.toFixed(0)}/s, misses ${r.missRps.toFixed(0)}/s, GET ${r.getRps.toFixed(0)}/s, hit p50 ${r.hitP50.toFixed(2)} → ${r.hitP50Storm.toFixed(2)} ms under misses`,
      );
    }

    const exports: ExportRow[] = [];
    const out = join(tmp, 'exports');
    await mkdir(out, { recursive: true });
    const big = SIZES.filter((s) => s >= 100_000);
    const both = async (what: string, dir: string): Promise<void> => {
      exports.push(await measureExport(what, dir, out));
      exports.push(await measureExport(what, dir, out, EXPORT_HEAP_MB));
    };
    for (const size of QUICK ? [10_000] : big.slice(0, process.env.BENCH_FULL === '1' ? 2 : 1))
      await both(`${size.toLocaleString('en')} entries`, dirs.get(size) as string);
    if (!QUICK) {
      const tenKb = join(tmp, 'c60k-10kB');
      await generateCassette(tenKb, 60_000, 10_000);
      await both('60,000 × 10 kB', tenKb);
      await rm(tenKb, { recursive: true, force: true });
    }
    for (const e of exports)
      log(`bench scale: export ${e.what}: ${e.seconds.toFixed(1)} s, peak RSS ${e.peakRssMb.toFixed(0)} MB`);

    const record = await measureRecord(tmp);
    const config = `${QUICK ? 'BENCH_QUICK' : 'full'}: phases of ${PHASE_MS} ms at 32 connections (hits rotate over ${SAMPLE.toLocaleString('en')} keys spread across the cassette); total ${((performance.now() - started) / 1000).toFixed(0)} s; ${engineLabel()}`;
    const markdown = scaleSummary(config, rows, exports, record);
    process.stdout.write(`\n${markdown}`);
    log(`bench scale: summary written to ${await save(markdown, 'scale.md')}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
