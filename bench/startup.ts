/**
 * Start-up benchmark (not a test): what starting `mcp-rewind` costs in each mode, until it is useful.
 *
 *   npm run build:cli && node --import tsx bench/startup.ts        (part of `npm run bench`; BENCH_QUICK=1: a smoke run)
 *   STARTUP_BASELINE=/path/to/other/bin/mcp-rewind.js …            (also runs that build, paired with this one)
 *
 * Targets, each a fresh process per round:
 *   node floor    — `node -e 0`: what any Node process costs here;
 *   --version     — until it exits;
 *   attach        — `--stdio --attach -- <server-everything stdio>` with no app running, until a real SDK client over
 *                   its stdio has listed the tools;
 *   replay        — `--replay --cache <cassette>`, until a real SDK client over HTTP has listed the tools;
 *   proxy-only    — `--proxy-only --url <server-everything streamableHttp>`, the same.
 * Measured per run: wall time from spawn to ready, and the CLI process's own user+system CPU and peak RSS at that moment
 * (/proc/<pid>/stat and VmHWM; for --version, process.resourceUsage() at exit through an --import probe). Children of
 * the CLI (the stdio server) are not counted. Rounds are interleaved (targets in order, then reversed) and, with a
 * baseline, each target runs this build and the baseline back to back; the per-round ratio's median is reported.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { everythingEntry, startEverything } from '../test/fixtures/everything.js';
import { median, save } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 2 : 8;
const CLI = fileURLToPath(new URL('../bin/mcp-rewind.js', import.meta.url));
const BASELINE = process.env.STARTUP_BASELINE;
const SERVER = [everythingEntry(), 'stdio'];
/** clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux) */
const TICKS_PER_S = 100;
const PROBE = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('STARTUP-PROBE '+JSON.stringify({cpuMs:(u.userCPUTime+u.systemCPUTime)/1000,rssKB:u.maxRSS})+'\\n')})`;

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssMB: number;
}

type Runner = (cli: string) => Promise<Sample>;

/** user+system CPU (ms) and peak RSS (MB) of a running process, from /proc */
function procUsage(pid: number): { cpuMs: number; rssMB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S; // utime, stime (fields 14, 15)
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs, rssMB: Number(hwm?.[1]) / 1024 };
}

/** runs `node <args>` to its exit; its CPU and peak RSS from the --import probe */
function toExit(args: string[]): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PROBE, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) =>
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      const probe = /STARTUP-PROBE (.+)/.exec(stderr);
      if (code !== 0 || !probe) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      const { cpuMs, rssKB } = JSON.parse(probe[1]) as { cpuMs: number; rssKB: number };
      resolve({ wallMs, cpuMs, rssMB: rssKB / 1024 });
    }),
  );
}

async function listTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error('no echo tool listed');
}

/** `--stdio --attach -- <server>` as an agent starts it: ready when its tools are listed over stdio */
function attachRunner(dataDir: string): Runner {
  return async (cli) => {
    const started = performance.now();
    const args = [cli, '--stdio', '--attach', '--attach-name', 'bench:startup', '--data-dir', dataDir, '--'];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...args, process.execPath, ...SERVER],
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench-startup', version: '1.0.0' });
    await client.connect(transport);
    await listTools(client);
    const wallMs = performance.now() - started;
    const usage = procUsage(transport.pid!);
    await client.close();
    return { wallMs, ...usage };
  };
}

/** an HTTP mode: ready when a client has listed the tools through the printed endpoint */
function httpRunner(flags: string[]): Runner {
  return async (cli) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          const m = /MCP endpoint\s+(http:\/\/\S+)/.exec(stdout);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`mcp-rewind ${flags.join(' ')} exited ${code}: ${stderr}`)));
      });
      const client = new Client({ name: 'bench-startup', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await listTools(client);
      const wallMs = performance.now() - started;
      const usage = procUsage(child.pid!);
      await client.close();
      return { wallMs, ...usage };
    } finally {
      const exited = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
}

/** records a cassette of server-everything's initialize and tools/list through the CLI itself */
async function recordCassette(dir: string): Promise<void> {
  const record = httpRunner(['--cache', dir, '--upstream-command', [process.execPath, ...SERVER].join(' ')]);
  await record(CLI);
}

interface Target {
  name: string;
  run: Runner;
  /** the goals for this target, if any */
  goal?: { cpuMs: number; rssMB: number };
}

interface Result {
  target: Target;
  ours: Sample[];
  base: Sample[];
}

const fmt = (values: number[], digits = 0): string => {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return 'n/a';
  return `${median(finite).toFixed(digits)} (${Math.min(...finite).toFixed(digits)}–${Math.max(...finite).toFixed(digits)})`;
};

function table(results: Result[]): string[] {
  const pick = (samples: Sample[], key: keyof Sample): number[] => samples.map((s) => s[key]);
  const lines = [
    '| target | wall ms | CPU ms | peak RSS MB | goal (CPU ms, MB) | met |',
    '|---|---:|---:|---:|---:|:---:|',
  ];
  for (const { target, ours } of results) {
    const cpu = median(pick(ours, 'cpuMs'));
    const rss = median(pick(ours, 'rssMB'));
    const goal = target.goal ? `≤ ${target.goal.cpuMs}, ≤ ${target.goal.rssMB}` : '';
    const met = target.goal ? (cpu <= target.goal.cpuMs && rss <= target.goal.rssMB ? 'yes' : '**NO**') : '';
    lines.push(
      `| ${target.name} | ${fmt(pick(ours, 'wallMs'))} | ${fmt(pick(ours, 'cpuMs'))} | ${fmt(pick(ours, 'rssMB'), 1)} | ${goal} | ${met} |`,
    );
  }
  return lines;
}

function baselineTable(results: Result[]): string[] {
  const ratios = (r: Result, key: keyof Sample): number[] => r.ours.map((s, i) => s[key] / r.base[i][key]);
  const lines = [
    '',
    `Against the baseline \`${BASELINE}\` (median of per-round ratios this build ÷ baseline, range):`,
    '',
    '| target | baseline wall ms | baseline CPU ms | baseline RSS MB | wall × | CPU × | RSS × |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const b = (key: keyof Sample, digits = 0): string =>
      fmt(
        r.base.map((s) => s[key]),
        digits,
      );
    lines.push(
      `| ${r.target.name} | ${b('wallMs')} | ${b('cpuMs')} | ${b('rssMB', 1)} | ${fmt(ratios(r, 'wallMs'), 2)} | ${fmt(ratios(r, 'cpuMs'), 2)} | ${fmt(ratios(r, 'rssMB'), 2)} |`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'rewind-bench-startup-'));
  const upstream = await startEverything('streamableHttp');
  try {
    const cassette = join(tmp, 'cassette');
    await recordCassette(cassette);
    const targets: Target[] = [
      { name: 'node floor (`node -e 0`)', run: () => toExit(['-e', '0']) },
      { name: '`--version`', run: (cli) => toExit([cli, '--version']), goal: { cpuMs: 150, rssMB: 60 } },
      { name: '`--stdio --attach -- <stdio server>`, no app', run: attachRunner(join(tmp, 'no-app')) },
      { name: '`--replay --cache <dir>`', run: httpRunner(['--replay', '--cache', cassette]) },
      { name: '`--proxy-only --url <server>`', run: httpRunner(['--proxy-only', '--url', upstream.url]) },
    ];
    const results: Result[] = targets.map((target) => ({ target, ours: [], base: [] }));
    for (const r of results) await r.target.run(CLI); // one warm-up run each (disk cache), not counted
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? results : [...results].reverse();
      for (const r of order) {
        const pair = BASELINE && round % 2 ? [BASELINE, CLI] : [CLI, BASELINE];
        for (const cli of pair) if (cli) (cli === CLI ? r.ours : r.base).push(await r.target.run(cli));
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
    }
    const markdown = [
      '# Start-up: what starting mcp-rewind costs, per mode',
      '',
      `A fresh process per run, ${ROUNDS} interleaved rounds; median (min–max). Wall: spawn until ready (exited, or tools`,
      "listed by a real SDK client); CPU and peak RSS: the CLI process's own, at that moment (its stdio child not counted).",
      '',
      ...table(results),
      ...(BASELINE ? baselineTable(results) : []),
      '',
      `node ${process.version}, ${new Date().toISOString()}, load average at the end ${loadavg()[0].toFixed(1)} on 2 cores`,
      '',
    ].join('\n');
    process.stdout.write(markdown);
    process.stderr.write(`written to ${await save(markdown, 'startup.md')}\n`);
  } finally {
    await upstream.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
