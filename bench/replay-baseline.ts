/**
 * Replay speed against the code this wave started from (issue 21: "replay speed within 5 % of today's"): the same
 * cassettes replayed by this build's engine and by the baseline's, side by side in one run, interleaved rounds (AB,
 * then BA), per-round paired ratios, their median reported; CPU per request beside.
 *   node --import tsx bench/replay-baseline.ts    (part of `npm run bench`; BENCH_QUICK=1 for a smoke run)
 * The baseline is built once into a temporary git worktree of BENCH_BASELINE_REV (default: the commit before the
 * wave's first replay change), with this checkout's node_modules linked in; a clone without that history says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, type Child } from './children.js';
import { callRequest, generateCassette } from './cassette-gen.js';
import { CpuMeter } from './cpu.js';
import { LoadClient } from './load.js';
import { save, summary, type TargetRow, type ThroughputRow } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CONCURRENCY = 32;
const CASSETTE_SIZE = 10_000;
/** the first parent of the merge that brought the wave's first replay change (library: --record-missing, --strict) */
const REV = process.env.BENCH_BASELINE_REV ?? '7b18283^1';
const cfg = QUICK ? { rounds: 3, loadMs: 400, warmMs: 300 } : { rounds: 16, loadMs: 1000, warmMs: 1500 };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** The baseline's engine, built in a temporary worktree; undefined (with the reason) when the rev is not here. */
function buildBaseline(dir: string): URL | string {
  const git = (...args: string[]): string => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' });
  try {
    git('rev-parse', '--verify', `${REV}^{commit}`);
  } catch {
    return `the baseline revision ${REV} is not in this clone's history (a shallow clone?)`;
  }
  git('worktree', 'add', '--detach', dir, REV);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.cli.json'], {
    cwd: dir,
    stdio: 'inherit',
  });
  const engine = join(dir, 'dist/main/engine/proxy.js');
  return existsSync(engine) ? pathToFileURL(engine) : `the baseline build wrote no ${engine}`;
}

interface Target {
  name: string;
  client: LoadClient;
  bodies: Buffer[];
  meter: CpuMeter;
  row: ThroughputRow;
  /** the server's CPU µs per request in each round */
  serverCpu: number[];
}

function target(name: string, child: Child, bodies: Buffer[]): Target {
  const meter = new CpuMeter([
    { label: 'loader', pid: process.pid },
    { label: 'server', pid: child.pid },
  ]);
  const row = { name, rps: [], p50Ms: [], p99Ms: [], errors: 0, cpuMs: meter.totals, requests: 0 };
  return { name, client: new LoadClient(child.url, CONCURRENCY), bodies, meter, row, serverCpu: [] };
}

async function measure(groups: Target[][]): Promise<void> {
  for (const t of groups.flat()) await t.client.handshake();
  // every entry once first (a cassette's first pass reads its files, while the content index is still being built;
  // the rounds measure the steady state), then a timed warm-up
  for (const t of groups.flat()) await t.client.run(t.bodies, CONCURRENCY, 60_000, t.bodies.length);
  for (const t of groups.flat()) await t.client.run(t.bodies, CONCURRENCY, cfg.warmMs);
  for (let round = 0; round < cfg.rounds; round++) {
    for (const t of groups.flatMap((g) => (round % 2 ? [...g].reverse() : g))) {
      const cpuBefore = t.meter.totals.get('server') ?? 0;
      const r = await t.meter.measure(() => t.client.run(t.bodies, CONCURRENCY, cfg.loadMs));
      t.serverCpu.push((((t.meter.totals.get('server') ?? 0) - cpuBefore) * 1000) / r.completed);
      Object.assign(t.row, { requests: t.row.requests + r.completed, errors: t.row.errors + r.errors });
      t.row.rps.push(r.rps);
      t.row.p50Ms.push(r.p50Ms);
      t.row.p99Ms.push(r.p99Ms);
    }
    log(`replay-baseline: round ${round + 1}/${cfg.rounds}`);
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-rewind-baseline-'));
  const children: Child[] = [];
  try {
    const baseline = buildBaseline(join(tmp, 'baseline'));
    if (typeof baseline === 'string') return log(`replay-baseline: skipped: ${baseline}`);
    await generateCassette(join(tmp, 'one'), 1);
    await generateCassette(join(tmp, 'tenk'), CASSETTE_SIZE);
    const start = async (cassette: string, env?: Record<string, string>): Promise<Child> => {
      const child = await startServer('proxy', ['replay', join(tmp, cassette)], undefined, env);
      children.push(child);
      return child;
    };
    const old = { BENCH_ENGINE_URL: baseline.href };
    const [now1, was1, nowTenk, wasTenk] = await Promise.all([
      start('one'),
      start('one', old),
      start('tenk'),
      start('tenk', old),
    ]);
    const one = [Buffer.from(JSON.stringify(callRequest(0, 1)))];
    const tenk = Array.from({ length: CASSETTE_SIZE }, (_, i) => Buffer.from(JSON.stringify(callRequest(i, i + 1))));
    const pairs: Target[][] = [
      [target('replay-1, this build', now1, one), target(`replay-1, baseline ${REV}`, was1, one)],
      [target('replay-10k, this build', nowTenk, tenk), target(`replay-10k, baseline ${REV}`, wasTenk, tenk)],
    ];
    await measure(pairs);
    const goals: TargetRow[] = pairs.flatMap(([now, was]) => [
      {
        metric: `${now.name.split(',')[0]}: this build / baseline (throughput)`,
        values: now.row.rps.map((v, i) => v / was.row.rps[i]),
        target: 0.95,
        kind: 'min' as const,
        unit: 'x' as const,
      },
      {
        metric: `${now.name.split(',')[0]}: server CPU/request, this build ÷ baseline`,
        values: now.serverCpu.map((v, i) => v / was.serverCpu[i]),
        target: 1.05,
        kind: 'max' as const,
        unit: 'x' as const,
      },
    ]);
    const config = `replay vs baseline ${REV}: ${cfg.rounds} rounds × ${cfg.loadMs} ms, concurrency ${CONCURRENCY}`;
    const md = summary(
      config,
      pairs.flat().map((t) => t.row),
      [],
      goals,
    );
    process.stdout.write(md);
    log(`replay-baseline: written to ${await save(md, 'replay-baseline.md')}`);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    if (existsSync(join(tmp, 'baseline')))
      execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', join(tmp, 'baseline')], { stdio: 'ignore' });
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
