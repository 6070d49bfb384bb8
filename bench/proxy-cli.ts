/**
 * proxy-only through the CLI itself (issue 32 items 3, 5): the shipped command
 *   mcp-rewind --proxy-only --url <upstream> --port 0        (node bin/mcp-rewind.js, the dist/ build)
 * beside a bare node:http pipe proxy (bench/servers/bare-proxy.ts, the floor) and the engine started in process the
 * way bench/run.ts does (bench/servers/proxy.ts proxy-only: startProxy without the CLI's options), all in front of the
 * same minimal node:http MCP upstream (bench/servers/canned.ts). Interleaved rounds (ABC, then CBA); per round the
 * throughput ratio and the ratio of the proxy process's CPU per request (/proc/<pid>/stat), their medians and ranges.
 * Every proxy's answers are checked before and after its rounds (peer-check.ts): a ratio over one that failed is void.
 *   npm run build:cli && node --import tsx bench/proxy-cli.ts     (part of `npm run bench`; BENCH_QUICK=1: smoke run)
 *   BENCH_PROFILE=1 …   also writes a --cpu-prof profile of the CLI process to bench/results/profiles
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { callRequest } from './cassette-gen.js';
import { startServer, type Child } from './children.js';
import { cpuMs } from './cpu.js';
import { LoadClient } from './load.js';
import { checkPeer, voidReason, type CheckResult } from './peer-check.js';
import { median, save, summary, type TargetRow, type ThroughputRow } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CONCURRENCY = 32;
const cfg = QUICK ? { rounds: 3, loadMs: 400, warmMs: 300 } : { rounds: 10, loadMs: 1200, warmMs: 1500 };
const profileDir =
  process.env.BENCH_PROFILE === '1' ? fileURLToPath(new URL('./results/profiles/', import.meta.url)) : undefined;
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Target {
  name: string;
  pid: number;
  client: LoadClient;
  row: ThroughputRow;
  /** proxy CPU µs per request, per round */
  cpuUs: number[];
  checks: CheckResult[];
}

/** The CLI as a user starts it; resolves with its MCP endpoint (the banner's line) once it listens. */
function startCli(
  upstreamUrl: string,
  flags: string[] = [],
  bin = fileURLToPath(new URL('../bin/mcp-rewind.js', import.meta.url)),
): Promise<Child & { process: ChildProcess }> {
  const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...prof, bin, '--proxy-only', '--url', upstreamUrl, '--port', '0', ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const orphaned = (): void => void child.kill('SIGTERM'); // a bench that dies leaves no proxy behind
  process.once('exit', orphaned);
  void exited.then(() => process.off('exit', orphaned));
  let printed = '';
  child.stderr!.on('data', (chunk: Buffer) => (printed = (printed + chunk.toString()).slice(-2000)));
  return new Promise((resolve, reject) => {
    let out = '';
    const early = (code: number | null): void => reject(new Error(`mcp-rewind exited (${code}): ${printed}`));
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /MCP endpoint\s+(\S+)/.exec(out);
      if (!m) return;
      child.off('exit', early);
      child.stdout!.removeAllListeners('data').resume();
      resolve({
        url: m[1],
        pid: child.pid!,
        process: child,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

const bodyOf = (n: number): Buffer => Buffer.from(JSON.stringify(callRequest(n % 64, n + 1)));
const checkBodies = (from: number): Buffer[] => Array.from({ length: CONCURRENCY + 4 }, (_, i) => bodyOf(from + i));

async function check(t: Target, from: number): Promise<void> {
  const result = await checkPeer(t.client, checkBodies(from), CONCURRENCY);
  t.checks.push(result);
  if (result.failed)
    log(`bench proxy-cli: ${t.name}: ${result.failed}/${result.sent} answers wrong: ${result.reasons[0]}`);
}

async function measure(t: Target): Promise<void> {
  const before = cpuMs(t.pid);
  let n = 1_000_000;
  const r = await t.client.run(() => bodyOf(n++), CONCURRENCY, cfg.loadMs);
  const spent = cpuMs(t.pid) - before;
  t.row.cpuMs.set('proxy', (t.row.cpuMs.get('proxy') ?? 0) + spent);
  t.row.requests += r.completed;
  t.row.rps.push(r.rps);
  t.row.p50Ms.push(r.p50Ms);
  t.row.p99Ms.push(r.p99Ms);
  t.row.errors += r.errors;
  t.cpuUs.push((spent * 1000) / r.completed);
}

function goals(floor: Target, others: Target[]): TargetRow[] {
  return others.flatMap((t) => {
    const why = voidReason(floor.name, floor.checks, floor.row.errors) ?? voidReason(t.name, t.checks, t.row.errors);
    return [
      {
        metric: `${t.name} ÷ bare node:http pipe proxy (throughput)`,
        values: t.row.rps.map((v, i) => v / floor.row.rps[i]),
        target: 0.95,
        kind: 'min' as const,
        unit: 'x' as const,
        void: why,
      },
      {
        metric: `${t.name} ÷ bare node:http pipe proxy (proxy CPU per request)`,
        values: t.cpuUs.map((v, i) => v / floor.cpuUs[i]),
        target: 1.1,
        kind: 'max' as const,
        unit: 'x' as const,
        void: why,
      },
    ];
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const children: Child[] = [];
  const targets: Target[] = [];
  try {
    const upstream = await startServer('canned');
    children.push(upstream);
    const [bare, cli, engine] = await Promise.all([
      startServer('bare-proxy', [upstream.url]),
      startCli(upstream.url),
      startServer('proxy', ['proxy-only', upstream.url], profileDir),
    ]);
    children.push(bare, cli, engine);
    // BENCH_CLI_VARIANTS="--no-oauth;--upstream-timeout 0 --upstream-max-time 0": the CLI with these flags, beside
    const variants = (process.env.BENCH_CLI_VARIANTS ?? '').split(';').filter((v) => v.trim());
    const variantChildren = await Promise.all(variants.map((v) => startCli(upstream.url, v.trim().split(/\s+/))));
    children.push(...variantChildren);
    // BENCH_CLI_BASELINE=<another build's bin/mcp-rewind.js>: the same command of that build, beside (before/after)
    const baselineBin = process.env.BENCH_CLI_BASELINE;
    const baseline = baselineBin ? await startCli(upstream.url, [], baselineBin) : undefined;
    if (baseline) children.push(baseline);
    const add = (name: string, child: Child): Target => {
      const row = { name, rps: [], p50Ms: [], p99Ms: [], errors: 0, cpuMs: new Map([['proxy', 0]]), requests: 0 };
      const t = {
        name,
        pid: child.pid,
        client: new LoadClient(child.url, CONCURRENCY, 10_000),
        row,
        cpuUs: [],
        checks: [],
      };
      targets.push(t);
      return t;
    };
    const floor = add('bare node:http pipe proxy', bare);
    const ours = add('mcp-rewind --proxy-only --url (the CLI)', cli);
    const inProcess = add('engine startProxy, as bench/run.ts runs it', engine);
    const variantTargets = variants.map((v, i) => add(`the CLI with ${v.trim()}`, variantChildren[i]));
    if (baseline) variantTargets.push(add(`the CLI of ${baselineBin}`, baseline));
    for (const t of targets) {
      await t.client.handshake();
      await check(t, 0);
    }
    log('bench proxy-cli: warming up');
    for (const t of targets) await t.client.run(bodyOf, CONCURRENCY, cfg.warmMs);
    for (let round = 0; round < cfg.rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) await measure(t);
      log(
        `bench proxy-cli: round ${round + 1}/${cfg.rounds}: ${targets.map((t) => `${t.row.rps.at(-1)?.toFixed(0)} req/s ${t.cpuUs.at(-1)?.toFixed(0)} µs`).join(' / ')}`,
      );
    }
    for (const t of targets) await check(t, 500);
    const config = `${QUICK ? 'BENCH_QUICK' : 'full'}: proxy-only in front of a minimal node:http MCP upstream (bench/servers/canned.ts), ${cfg.rounds} interleaved rounds × ${cfg.loadMs} ms at ${CONCURRENCY} connections, answers checked before and after each proxy's rounds; total ${((performance.now() - started) / 1000).toFixed(0)} s; CLI: bin/mcp-rewind.js (dist/)`;
    const markdown = summary(
      config,
      targets.map((t) => t.row),
      [],
      goals(floor, [ours, inProcess, ...variantTargets]),
    );
    process.stdout.write(`\n${markdown}`);
    log(`bench proxy-cli: summary written to ${await save(markdown, 'proxy-cli.md')}`);
    log(`bench proxy-cli: median req/s ${targets.map((t) => `${t.name}: ${median(t.row.rps).toFixed(0)}`).join(', ')}`);
  } finally {
    for (const t of targets) t.client.close();
    await Promise.all(children.map((c) => c.stop()));
    if (profileDir) log(`bench proxy-cli: cpu profile in ${profileDir} (node --import tsx bench/prof-top.ts <file>)`);
  }
}

await main();
