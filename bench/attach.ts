/**
 * Attach benchmark (not a test): what a wrapped server costs the agent, per call.
 *
 *   npm run build && node --import tsx bench/attach.ts        (BENCH_QUICK=1: a smoke run)
 *
 * A real SDK client launches server-everything over stdio four ways and calls `echo` one call at a time:
 *   direct        — the server itself, as the unwrapped entry does;
 *   stdio proxy   — `mcp-rewind --stdio --proxy-only --upstream-command …` (the existing stdio mode, for reference);
 *   attach, alone — the wrapped entry with no app running (`--stdio --attach -- <command>`): a plain pass-through;
 *   attach, app   — the same with `mcp-rewind ui` running on its data folder, the exchanges streamed to its timeline.
 * Rounds are interleaved (ABCD, then DCBA) so a noisy phase of the machine hits every target; per round the median
 * call time of each target is divided by direct's, and the median of those ratios is reported with the times.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { everythingEntry } from '../test/fixtures/everything.js';
import { apiOf, startUiProcess } from '../test/helpers/ui-process.js';
import { median, save } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 10;
const CALLS = QUICK ? 20 : 60;
const CLI = fileURLToPath(new URL('../bin/mcp-rewind.js', import.meta.url));
const SERVER = [process.execPath, everythingEntry(), 'stdio'];

interface Target {
  name: string;
  args: string[];
  client?: Client;
  connectMs?: number;
  perCall: number[];
  ratios: number[];
}

async function connect(target: Target): Promise<void> {
  const started = performance.now();
  const client = new Client({ name: 'bench-attach', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: target.args[0], args: target.args.slice(1), stderr: 'ignore' }),
  );
  await client.listTools();
  target.connectMs = performance.now() - started;
  target.client = client;
}

/** the median time of one echo call, over CALLS calls made one after another */
async function round(target: Target): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await target.client!.callTool({ name: 'echo', arguments: { message: `call ${i}` } });
    times.push(performance.now() - t0);
  }
  const m = median(times);
  target.perCall.push(m);
  return m;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'rewind-bench-attach-'));
  const alone = join(tmp, 'no-app');
  const watched = join(tmp, 'app');
  const attach = (dataDir: string): string[] => [
    process.execPath,
    CLI,
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
    { name: 'direct', args: SERVER, perCall: [], ratios: [] },
    {
      name: 'stdio proxy (--stdio --proxy-only)',
      args: [process.execPath, CLI, '--stdio', '--proxy-only', '--upstream-command', SERVER.join(' ')],
      perCall: [],
      ratios: [],
    },
    { name: 'attach, no app', args: attach(alone), perCall: [], ratios: [] },
    { name: 'attach, app watching', args: attach(watched), perCall: [], ratios: [] },
  ];
  const ui = await startUiProcess(watched, { args: ['--no-open'] });
  try {
    for (const t of targets) await connect(t);
    // the watched one must be attached before it is measured
    const api = await apiOf(ui.origin, ui.token());
    for (let i = 0; ; i++) {
      const proxies = await api.call<Array<{ name: string; attached?: { processes: number } }>>('proxies.list');
      if (proxies.some((p) => p.name === 'bench:everything' && (p.attached?.processes ?? 0) > 0)) break;
      if (i > 200) throw new Error('the attached process never joined the app');
      await new Promise((r) => setTimeout(r, 100));
    }
    api.close();
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      const times = new Map<Target, number>();
      for (const t of order) times.set(t, await round(t));
      for (const t of targets) t.ratios.push(times.get(t)! / times.get(targets[0])!);
      process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
    }
  } finally {
    for (const t of targets) await t.client?.close().catch(() => {});
    await ui.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const rows = targets.map(
    (t) =>
      `| ${t.name} | ${median(t.perCall).toFixed(2)} | ${median(t.ratios).toFixed(2)} | ${(t.connectMs ?? NaN).toFixed(0)} |`,
  );
  const markdown = [
    '# Attach: the cost of a wrapped server, per call',
    '',
    `server-everything over stdio, a real SDK client, \`echo\` one call at a time; ${ROUNDS} interleaved rounds of ${CALLS} calls;`,
    'ratio = median over rounds of (target median / direct median) in the same round. Connect: spawn + initialize + tools/list, once.',
    '',
    '| target | ms per call (median) | × direct | connect ms |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    `node ${process.version}, ${new Date().toISOString()}, load average at the end ${loadavg()[0].toFixed(1)} on 2 cores`,
    '',
  ].join('\n');
  process.stdout.write(markdown);
  process.stderr.write(`written to ${await save(markdown, 'attach.md')}\n`);
}

await main();
