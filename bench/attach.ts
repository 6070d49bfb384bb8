/**
 * Attach benchmark (not a test): what a wrapped stdio server costs the agent.
 *
 *   npm run build && node --import tsx bench/attach.ts        (BENCH_QUICK=1: a smoke run)
 *
 * A real SDK client launches server-everything over stdio five ways and calls `echo` one call at a time:
 *   direct        — the server itself, as the unwrapped entry does;
 *   bare pipe     — a tiny node wrapper that spawns the server and pipes bytes both ways (the floor);
 *   stdio proxy   — `mcp-rewind --stdio --proxy-only -- <server>`;
 *   attach, alone — the wrapped entry with no app running (`--stdio --attach -- <server>`);
 *   attach, app   — the same with `mcp-rewind ui` running on its data folder, the exchanges streamed to its timeline.
 * With ATTACH_BASELINE=/path/to/other/bin/mcp-rewind.js a sixth target, that build's `attach, no app`, runs in the same
 * rounds (a before/after paired under the same load).
 * Each round, for every target in turn (ABCDE, then EDCBA): a fresh process is spawned and connected (spawn →
 * tools listed), its answers are checked, CALLS calls are timed, its answers are checked again, and the peak RSS of
 * the wrapper process (VmHWM, not the server's) is read before it is closed. Per round each target's connect time
 * and median call time are paired with direct's of the same round; medians over rounds are reported with their
 * ranges. A target that erred (a wrong answer, a failed call) has its row voided. Last, `mcp-rewind --version`:
 * its CPU time and peak RSS.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { everythingEntry } from '../test/fixtures/everything.js';
import { apiOf, startUiProcess } from '../test/helpers/ui-process.js';
import { median, save } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 8;
const CALLS = QUICK ? 20 : 60;
const VERSION_RUNS = QUICK ? 3 : 7;
const CLI = fileURLToPath(new URL('../bin/mcp-rewind.js', import.meta.url));
const BASELINE = process.env.ATTACH_BASELINE;
const SERVER = [process.execPath, everythingEntry(), 'stdio'];
const run = promisify(execFile);

/** The floor: spawn the server, pipe bytes both ways, nothing else. */
const BARE_PIPE = `const { spawn } = require('node:child_process');
const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
`;

/** Preloaded into `mcp-rewind --version`: its own CPU time and peak RSS, written on exit. */
const MEASURE = `process.on('exit', () => {
  const u = process.resourceUsage();
  require('node:fs').writeFileSync(process.env.REWIND_BENCH_USAGE, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS }));
});
`;

interface Target {
  name: string;
  args: string[];
  /** the app must show it attached before it is measured */
  watched?: boolean;
  connectMs: number[];
  perCallMs: number[];
  rssMb: number[];
  errors: number;
  firstError?: string;
}

const target = (name: string, args: string[], watched = false): Target => ({
  name,
  args,
  watched,
  connectMs: [],
  perCallMs: [],
  rssMb: [],
  errors: 0,
});

/** Peak resident memory of a process (VmHWM), in MB. */
function peakRssMb(pid: number | null | undefined): number {
  if (!pid) return NaN;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Does the peer answer echo right? Counts an error on the target when not. */
async function check(t: Target, client: Client, when: string): Promise<void> {
  try {
    const result = (await client.callTool({ name: 'echo', arguments: { message: `check ${when}` } })) as {
      content: Array<{ text?: string }>;
    };
    if (result.content[0]?.text !== `Echo: check ${when}`) throw new Error(`wrong answer ${JSON.stringify(result)}`);
  } catch (error) {
    t.errors++;
    t.firstError ??= `${when}: ${(error as Error).message}`;
  }
}

/** One round of one target: connect a fresh process, check, time CALLS calls, check, read its peak RSS, close. */
async function round(t: Target, waitAttached: () => Promise<void>): Promise<void> {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: t.args[0], args: t.args.slice(1), stderr: 'ignore' });
  const client = new Client({ name: 'bench-attach', version: '1.0.0' });
  try {
    await client.connect(transport);
    await client.listTools();
    t.connectMs.push(performance.now() - started);
    if (t.watched) await waitAttached();
    await check(t, client, 'before');
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      await client.callTool({ name: 'echo', arguments: { message: `call ${i}` } });
      times.push(performance.now() - t0);
    }
    t.perCallMs.push(median(times));
    await check(t, client, 'after');
    t.rssMb.push(peakRssMb(transport.pid));
  } catch (error) {
    t.errors++;
    t.firstError ??= (error as Error).message;
  } finally {
    await client.close().catch(() => {});
  }
}

/** `mcp-rewind --version`, VERSION_RUNS times: median CPU ms and peak RSS MB, with ranges. */
async function versionCost(tmp: string): Promise<{ cpuMs: number[]; rssMb: number[] }> {
  const preload = join(tmp, 'measure.cjs');
  writeFileSync(preload, MEASURE);
  const out = join(tmp, 'usage.json');
  const cpuMs: number[] = [];
  const rssMb: number[] = [];
  for (let i = 0; i < VERSION_RUNS; i++) {
    await run(process.execPath, ['--require', preload, CLI, '--version'], {
      env: { ...process.env, REWIND_BENCH_USAGE: out },
    });
    const usage = JSON.parse(readFileSync(out, 'utf8')) as { cpuMs: number; maxRssKb: number };
    cpuMs.push(usage.cpuMs);
    rssMb.push(usage.maxRssKb / 1024);
  }
  return { cpuMs, rssMb };
}

const fmt = (v: number, digits = 1): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');
const range = (values: number[], digits = 1): string =>
  values.length
    ? `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`
    : 'n/a';
const paired = (t: Target, direct: Target, of: (x: Target) => number[]): number[] =>
  of(t)
    .map((v, i) => v - of(direct)[i])
    .filter((v) => Number.isFinite(v));

function report(targets: Target[], version: { cpuMs: number[]; rssMb: number[] }): string {
  const direct = targets[0];
  const rows = targets.map((t) => {
    if (t.errors > 0 || direct.errors > 0)
      return `| ${t.name} | void: ${t.errors} error(s) (${t.firstError ?? 'direct erred'}) | | | | |`;
    const added =
      t === direct
        ? '—'
        : range(
            paired(t, direct, (x) => x.perCallMs),
            2,
          );
    const connect =
      t === direct
        ? '—'
        : range(
            paired(t, direct, (x) => x.connectMs),
            0,
          );
    return `| ${t.name} | ${range(t.perCallMs, 2)} | ${added} | ${range(t.connectMs, 0)} | ${connect} | ${range(t.rssMb)} |`;
  });
  return [
    '# Attach: what a wrapped stdio server costs, per call, at connect and in memory',
    '',
    `server-everything over stdio, a real SDK client (v1), \`echo\` one call at a time; ${ROUNDS} interleaved rounds`,
    `(ABCDE, EDCBA, …), each a fresh process per target: connect (spawn → tools listed), ${CALLS} calls, peak RSS of`,
    'the wrapper process (VmHWM; direct: the server itself). Added = target − direct in the same round (paired);',
    'medians over rounds with (min–max). Each target is checked (an echo answer) before and after its calls in every',
    'round; a target that erred is void.',
    '',
    '| target | ms per call | added ms per call | connect ms | connect − direct ms | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `\`mcp-rewind --version\` (${VERSION_RUNS} runs): CPU ${range(version.cpuMs, 0)} ms, peak RSS ${range(version.rssMb)} MB.`,
    '',
    'Goals (issue 32): added per call ≤ 0.5 ms with no app, ≤ 1.0 ms with the app watching; connect ≤ +250 ms over',
    'direct; wrapper RSS ≤ 70 MB; `--version` ≤ 150 ms CPU, ≤ 60 MB.',
    '',
    `node ${process.version}, ${new Date().toISOString()}, load average at the end ${loadavg()[0].toFixed(1)} on 2 cores`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'rewind-bench-attach-'));
  const bare = join(tmp, 'bare-pipe.cjs');
  writeFileSync(bare, BARE_PIPE);
  const watchedDir = join(tmp, 'app');
  const attach = (dataDir: string, cli = CLI): string[] => [
    process.execPath,
    cli,
    '--stdio',
    '--attach',
    '--attach-name',
    'bench:everything',
    '--data-dir',
    dataDir,
    '--',
    ...SERVER,
  ];
  const targets: Target[] = [
    target('direct', SERVER),
    target('bare pipe wrapper (floor)', [process.execPath, bare, ...SERVER]),
    target('stdio proxy (--stdio --proxy-only)', [process.execPath, CLI, '--stdio', '--proxy-only', '--', ...SERVER]),
    target('attach, no app', attach(join(tmp, 'no-app'))),
    target('attach, app watching', attach(watchedDir), true),
    ...(BASELINE ? [target(`attach, no app — baseline ${BASELINE}`, attach(join(tmp, 'no-app-base'), BASELINE))] : []),
  ];
  const ui = await startUiProcess(watchedDir, { args: ['--no-open'] });
  const api = await apiOf(ui.origin, ui.token());
  const waitAttached = async (): Promise<void> => {
    for (let i = 0; i < 200; i++) {
      const proxies = await api.call<Array<{ name: string; attached?: { processes: number } }>>('proxies.list');
      if (proxies.some((p) => p.name === 'bench:everything' && (p.attached?.processes ?? 0) > 0)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the attached process never joined the app');
  };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) await round(t, waitAttached);
      process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
    }
  } finally {
    api.close();
    await ui.stop();
  }
  const version = await versionCost(tmp);
  rmSync(tmp, { recursive: true, force: true });
  const markdown = report(targets, version);
  process.stdout.write(markdown);
  process.stderr.write(`written to ${await save(markdown, 'attach.md')}\n`);
}

await main();
