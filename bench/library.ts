/**
 * The library's speed (part of `npm run bench`; BENCH_QUICK=1 for a smoke run):
 * - startProxy in replay, ready for a 1,000-entry cassette (the promise resolved; and the first call answered), side by
 *   side with the CLI's start (`mcp-rewind --replay`: spawned until its banner; and its first answer);
 * - wrapTransport in replay: time per tools/call over the bare in-memory transport (an SDK McpServer answering), and
 *   the ratio. Interleaved rounds, medians.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startProxy, wrapTransport } from '../src/lib/index.js';
import { argumentsFor, generateCassette, TOOL, toolResult } from './cassette-gen.js';
import { median, save } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 10;
const CALLS = QUICK ? 300 : 2000;
const ENTRIES = 1000;
const BIN = new URL('../bin/mcp-rewind.js', import.meta.url).pathname;
const env = { MCP_REWIND_MODE: 'replay' };

async function firstCall(url: string): Promise<void> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.callTool({ name: TOOL, arguments: argumentsFor(7) });
  await client.close();
}

/** startProxy: ms until it resolved, and until the first call was answered. */
async function libraryStart(cassette: string): Promise<[number, number]> {
  const t0 = performance.now();
  const proxy = await startProxy({ cassette, env });
  const ready = performance.now() - t0;
  await firstCall(proxy.url);
  const answered = performance.now() - t0;
  await proxy.close();
  return [ready, answered];
}

/** The CLI: ms from spawn to its banner, and to the first answer. */
async function cliStart(cassette: string): Promise<[number, number]> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, '--replay', '--cache', cassette], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /MCP endpoint\s+(\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`the CLI exited: ${out}`)));
  });
  const ready = performance.now() - t0;
  await firstCall(url);
  const answered = performance.now() - t0;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return [ready, answered];
}

async function bareClient(): Promise<Client> {
  const server = new McpServer({ name: 'bench-server', version: '1.0.0' });
  server.registerTool(
    TOOL,
    { inputSchema: { query: z.string(), limit: z.number(), includeArchived: z.boolean() } },
    (args) => {
      const i = Number(/(\d+)$/.exec(args.query)?.[1] ?? 0);
      return toolResult(i) as { content: Array<{ type: 'text'; text: string }> };
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientSide);
  return client;
}

async function wrappedClient(cassette: string): Promise<Client> {
  const [clientSide] = InMemoryTransport.createLinkedPair(); // never started: replay answers
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(wrapTransport(clientSide, { cassette, env }));
  return client;
}

/** ms per tools/call, CALLS sequential calls. */
async function perCall(client: Client): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: TOOL, arguments: argumentsFor(i % ENTRIES) });
  return (performance.now() - t0) / CALLS;
}

const fmt = (values: number[], digits = 1): string =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

async function main(): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'mcp-rewind-bench-lib-'));
  try {
    const cassette = join(tmp, 'cassette');
    await generateCassette(cassette, ENTRIES);
    const lib: Array<[number, number]> = [];
    const cli: Array<[number, number]> = [];
    for (let round = 0; round < ROUNDS; round++) {
      lib.push(await libraryStart(cassette)); // interleaved: a slow phase hits both
      cli.push(await cliStart(cassette));
    }
    const bare = await bareClient();
    const wrapped = await wrappedClient(cassette);
    await perCall(bare); // warm-up
    await perCall(wrapped);
    const bareMs: number[] = [];
    const wrappedMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareMs.push(await perCall(bare));
      wrappedMs.push(await perCall(wrapped));
    }
    await bare.close();
    await wrapped.close();
    const overhead = wrappedMs.map((w, i) => w - bareMs[i]);
    const ratio = wrappedMs.map((w, i) => w / bareMs[i]);
    const lines = [
      `# mcp-rewind library bench — ${new Date().toISOString()}`,
      '',
      `node ${process.version}, ${ROUNDS} rounds, ${CALLS} calls per round; median (min–max)`,
      '',
      `| replay start, ${ENTRIES}-entry cassette | ready (ms) | first call answered (ms) |`,
      '|---|---:|---:|',
      `| startProxy (library, in-process) | ${fmt(lib.map((r) => r[0]))} | ${fmt(lib.map((r) => r[1]))} |`,
      `| mcp-rewind --replay (CLI, spawned until its banner) | ${fmt(cli.map((r) => r[0]))} | ${fmt(cli.map((r) => r[1]))} |`,
      '',
      '| tools/call, in-process | ms per call |',
      '|---|---:|',
      `| bare InMemoryTransport + SDK McpServer | ${fmt(bareMs, 4)} |`,
      `| wrapTransport replay (the transport never started) | ${fmt(wrappedMs, 4)} |`,
      `| overhead (wrapped − bare, per round) | ${fmt(overhead, 4)} |`,
      `| ratio (wrapped / bare) | ${fmt(ratio, 2)} |`,
      '',
    ];
    const text = lines.join('\n');
    process.stdout.write(text);
    process.stderr.write(`bench: written to ${await save(text, 'library.md')}\n`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
