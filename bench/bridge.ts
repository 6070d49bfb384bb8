/**
 * The stdio bridge side by side with its peers (issue 21 item 3b): one stdio MCP server (bench/servers/stdio-sdk.mjs,
 * the official SDK's McpServer) presented as Streamable HTTP by
 *   - mcp-rewind   `mcp-rewind --proxy-only --upstream-command "node stdio-sdk.mjs"`
 *   - supergateway `supergateway --stdio "node stdio-sdk.mjs" --outputTransport streamableHttp --stateful`
 *   - mcp-proxy    `mcp-proxy --server stream -- node stdio-sdk.mjs`
 * each with its defaults otherwise, under the same closed-loop load (one session, CONCURRENCY connections, tools/call),
 * in interleaved rounds (ABC, then CBA). Printed: req/s and CPU per request (the bridge process and its stdio child),
 * and our ratios to each peer, per round paired, their median reported.
 *
 * Every request id is used once (the MCP spec: a request id is never reused within a session). The bench used to
 * cycle 64 ids on the one session: a stateful bridge routes an answer to the request of its id, so two requests of
 * one id in flight at once cost one of them its answer — it hung until the 5 s request timeout, an error, and the
 * peers ran at a quarter of their speed (260–270 req/s with errors where they make 900–1,100 without). Each bridge's
 * answers are checked before and after its rounds (peer-check.ts); a ratio over one that failed a check or erred in
 * its rounds is void, and says why.
 *   node --import tsx bench/bridge.ts       (part of `npm run bench`; BENCH_QUICK=1 for a smoke run)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { callRequest } from './cassette-gen.js';
import { cpuMs } from './cpu.js';
import { LoadClient } from './load.js';
import { checkPeer, voidReason, type CheckResult } from './peer-check.js';
import { cpuPerRequest, median, save, summary, type TargetRow, type ThroughputRow } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CONCURRENCY = 32;
const cfg = QUICK ? { rounds: 3, loadMs: 400, warmMs: 300 } : { rounds: 8, loadMs: 1500, warmMs: 1500 };
/** a request a bridge never answers counts as an error after this long (a lost answer must not stall the bench) */
const REQUEST_TIMEOUT_MS = 5_000;
const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const SERVER = [process.execPath, here('./servers/stdio-sdk.mjs')];
const bin = (name: string): string => here(`../node_modules/.bin/${name}`);

const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Bridge {
  name: string;
  argv: (port: number) => string[];
}

const BRIDGES: Bridge[] = [
  {
    name: 'mcp-rewind (--proxy-only --upstream-command)',
    argv: (port) => [
      process.execPath,
      here('../bin/mcp-rewind.js'),
      '--proxy-only',
      '--port',
      String(port),
      '--upstream-command',
      SERVER.join(' '),
    ],
  },
  {
    name: 'supergateway (stdio → streamableHttp, --stateful)',
    argv: (port) => [
      bin('supergateway'),
      '--stdio',
      SERVER.join(' '),
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ],
  },
  {
    name: 'mcp-proxy (--server stream)',
    argv: (port) => [
      bin('mcp-proxy'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--server',
      'stream',
      '--',
      ...SERVER,
    ],
  },
];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port: number, child: ChildProcess, name: string): Promise<void> {
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (code ${child.exitCode}) before listening`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name}: nothing listens on port ${port} within 30 s`);
}

/** The process and all its descendants (the stdio child, any shell in between), from /proc. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const task of readFileSync(`/proc/${tree[i]}/task/${tree[i]}/children`, 'utf8').split(' '))
        if (task.trim()) tree.push(Number(task));
    } catch {
      // gone, or not Linux: what was found is counted
    }
  }
  return tree;
}

interface Target {
  name: string;
  child: ChildProcess;
  client: LoadClient;
  pids: number[];
  row: ThroughputRow;
  checks: CheckResult[];
}

/** tools/call requests, each with an id of its own (never one in use on the session) */
let nextId = 1;
const nextBody = (): Buffer => {
  const id = nextId++;
  return Buffer.from(JSON.stringify(callRequest(id % 64, id)));
};
const freshBodies = (count: number): Buffer[] => Array.from({ length: count }, nextBody);

async function check(t: Target, when: string): Promise<void> {
  const result = await checkPeer(t.client, freshBodies(CONCURRENCY + 4), CONCURRENCY);
  t.checks.push(result);
  log(
    `bench bridge: ${t.name}: ${when}: ${result.sent - result.failed}/${result.sent} answers right${result.failed ? ` (${result.reasons[0]})` : ''}`,
  );
}

async function startTarget(bridge: Bridge): Promise<Target> {
  const port = await freePort();
  const [command, ...args] = bridge.argv(port);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let printed = '';
  child.stderr!.on('data', (chunk: Buffer) => (printed = (printed + chunk.toString()).slice(-2000)));
  try {
    await listening(port, child, bridge.name);
    const client = new LoadClient(`http://127.0.0.1:${port}/mcp`, CONCURRENCY, REQUEST_TIMEOUT_MS);
    await client.handshake(); // the stdio child is spawned for this session
    const pids = processTree(child.pid!);
    const row = { name: bridge.name, rps: [], p50Ms: [], p99Ms: [], errors: 0, cpuMs: new Map(), requests: 0 };
    row.cpuMs.set('bridge + stdio server', 0);
    return { name: bridge.name, child, client, pids, row, checks: [] };
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${printed}`, { cause: error });
  }
}

/** A round that does not end (a bridge lost an answer, so a connection waits forever) fails the bench, naming it. */
function within<T>(run: Promise<T>, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: a round did not end within 60 s (an answer lost?)`)), 60_000);
  });
  return Promise.race([run, stalled]).finally(() => clearTimeout(timer));
}

const cpuOf = (pids: number[]): number => pids.reduce((sum, pid) => sum + (cpuMs(pid) || 0), 0);

async function measure(t: Target): Promise<void> {
  const before = cpuOf(t.pids);
  const r = await within(t.client.run(nextBody, CONCURRENCY, cfg.loadMs), t.name);
  const label = 'bridge + stdio server';
  t.row.cpuMs.set(label, (t.row.cpuMs.get(label) ?? 0) + cpuOf(t.pids) - before);
  t.row.requests += r.completed;
  t.row.rps.push(r.rps);
  t.row.p50Ms.push(r.p50Ms);
  t.row.p99Ms.push(r.p99Ms);
  t.row.errors += r.errors;
}

function goals(ours: Target, peers: Target[]): TargetRow[] {
  const label = 'bridge + stdio server';
  return peers.flatMap((peer) => {
    const why =
      voidReason(ours.name, ours.checks, ours.row.errors) ?? voidReason(peer.name, peer.checks, peer.row.errors);
    return [
      {
        metric: `stdio bridge: mcp-rewind / ${peer.name.split(' ')[0]} (throughput)`,
        values: ours.row.rps.map((v, i) => v / peer.row.rps[i]),
        target: 1,
        kind: 'min' as const,
        unit: 'x' as const,
        void: why,
      },
      {
        metric: `stdio bridge CPU/request: ${peer.name.split(' ')[0]} ÷ mcp-rewind (above 1: we cost less)`,
        values: [cpuPerRequest(peer.row, label) / cpuPerRequest(ours.row, label)],
        target: 1,
        kind: 'min' as const,
        unit: 'x' as const,
        void: why,
      },
    ];
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const targets: Target[] = [];
  try {
    for (const bridge of BRIDGES) targets.push(await startTarget(bridge));
    for (const t of targets) await check(t, 'before its rounds');
    log('bench bridge: warming up');
    for (const t of targets) {
      const warm = await within(t.client.run(nextBody, CONCURRENCY, cfg.warmMs), t.name);
      log(`bench bridge: ${t.name}: ${warm.rps.toFixed(0)} req/s warm, ${warm.errors} errors`);
    }
    for (let round = 0; round < cfg.rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) await measure(t);
      log(
        `bench bridge: round ${round + 1}/${cfg.rounds}: ${targets.map((t) => `${t.row.rps.at(-1)?.toFixed(0)} (${t.row.errors} errors so far)`).join(' / ')} req/s`,
      );
    }
    for (const t of targets) await check(t, 'after its rounds');
    const config = `${QUICK ? 'BENCH_QUICK' : 'full'}: one stdio SDK server bridged to Streamable HTTP, ${cfg.rounds} interleaved rounds × ${cfg.loadMs} ms at ${CONCURRENCY} connections on one session, every request id used once, answers checked before and after each bridge's rounds; total ${((performance.now() - started) / 1000).toFixed(0)} s`;
    const markdown = summary(
      config,
      targets.map((t) => t.row),
      [],
      goals(targets[0], targets.slice(1)),
    );
    process.stdout.write(`\n${markdown}`);
    log(`bench bridge: summary written to ${await save(markdown, 'bridge.md')}`);
    log(
      `bench bridge: median req/s ${targets.map((t) => `${t.name.split(' ')[0]} ${median(t.row.rps).toFixed(0)}`).join(', ')}`,
    );
  } finally {
    for (const t of targets) {
      t.client.close();
      t.child.kill('SIGTERM');
    }
  }
}

await main();
