/**
 * Transports, any side to any side: @modelcontextprotocol/server-everything over each of its three transports
 * (stdio, legacy HTTP+SSE, Streamable HTTP) as the upstream, crossed with each downstream transport (Streamable
 * HTTP, legacy SSE on the proxy, and `--stdio` through the BUILT CLI) — record, stop the upstream, replay.
 * Plus: progress relayed live through a stdio upstream, a stdio child that dies mid-session, detection, usage.
 *
 * The stdio-downstream cases run `node bin/mcp-rewind.js` (dist/): build first (`npx tsc -p tsconfig.cli.json`).
 * Every stdio server child gets a marker argument (ignored by server-everything), so the last test can check
 * with `ps` that none outlived its test.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Mode } from '../../src/shared/modes.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { detectUpstreamKind } from '../../src/main/engine/upstream/detect.js';
import { splitShellWords } from '../../src/main/engine/transports/shell-words.js';
import { startUpstreamBridge, type UpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { connectClient, defaultElicitHandler, defaultSamplingHandler } from '../fixtures/client.js';
import { everythingEntry, startEverything, type EverythingTransport } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { proxyOverBridge } from '../helpers/stdio-peers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(REPO, 'bin/mcp-rewind.js');
/** on the command line of every stdio server this file starts */
const MARKER = `--rewind-transports-test=${randomUUID()}`;
const STDIO_ARGS = [everythingEntry(), 'stdio', MARKER];
/** the same command as one --upstream-command string (paths quoted: they may contain spaces) */
const STDIO_COMMAND_LINE = [process.execPath, ...STDIO_ARGS].map((word) => `"${word}"`).join(' ');

type Downstream = 'streamableHttp' | 'sse' | 'stdio';

const open: Array<{ close(): Promise<void> }> = [];
function keep<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}
async function closeAll(): Promise<void> {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
}
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const quiet = (): void => {};

// ---------------------------------------------------------------------------------------------------------------
// the MCP session every combination runs

interface McpSession {
  client: Client;
  close(): Promise<void>;
}

async function calls(client: Client) {
  return {
    server: client.getServerVersion(),
    tools: await client.listTools(),
    echo: await client.callTool({ name: 'echo', arguments: { message: 'over any transport' } }),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
  };
}

/** A Client with the fixture client's capabilities and answers, over the built CLI in --stdio mode. */
async function stdioCli(
  args: string[],
): Promise<McpSession & { pid: number; stderr(): string; exited: Promise<number | null> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--stdio', ...args],
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client(
    { name: 'fixture-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (req) => defaultSamplingHandler(req.params));
  client.setRequestHandler(ElicitRequestSchema, (req) => defaultElicitHandler(req.params));
  await client.connect(transport).catch((error: Error) => {
    throw new Error(`${error.message}\nCLI stderr:\n${stderr}`);
  });
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return { client, pid: child.pid as number, stderr: () => stderr, exited, close: () => client.close() };
}

interface Upstream {
  /** what the engine proxy relays to (the bridge's URL for stdio and legacy SSE) */
  url: string;
  /** what the CLI is given */
  cliArgs: string[];
  bridge?: UpstreamBridge;
  close(): Promise<void>;
}

/** server-everything over `transport`, bridged for the in-process proxy the way the CLI bridges it. */
async function startUpstream(transport: EverythingTransport, forCli: boolean): Promise<Upstream> {
  if (transport === 'stdio') {
    if (forCli) return { url: '', cliArgs: ['--upstream-command', STDIO_COMMAND_LINE], close: async () => {} };
    const bridge = await startUpstreamBridge({ kind: 'stdio', command: process.execPath, args: STDIO_ARGS }, quiet);
    return { url: bridge.url, cliArgs: [], bridge, close: () => bridge.close() };
  }
  const everything = await startEverything(transport);
  const kind = await detectUpstreamKind(everything.url);
  expect(kind).toBe(transport === 'sse' ? 'sse' : 'streamable-http');
  if (forCli || kind === 'streamable-http')
    return { url: everything.url, cliArgs: ['--url', everything.url], close: () => everything.close() };
  const bridge = await startUpstreamBridge({ kind: 'sse', url: everything.url }, quiet);
  return {
    url: bridge.url,
    cliArgs: [],
    bridge,
    close: async () => {
      await bridge.close();
      await everything.close();
    },
  };
}

/** One client session through a proxy in `mode`, with `upstream` (none in replay), over `downstream`. */
async function run(downstream: Downstream, mode: Mode, cacheDir: string, upstreamTransport?: EverythingTransport) {
  const upstream = upstreamTransport ? keep(await startUpstream(upstreamTransport, downstream === 'stdio')) : undefined;
  let session: McpSession;
  if (downstream === 'stdio') {
    session = keep(
      await stdioCli([...(mode === 'replay' ? ['--replay'] : []), '--cache', cacheDir, ...(upstream?.cliArgs ?? [])]),
    );
  } else {
    // in process, as the CLI reaches its bridge
    const upstreamDispatch = upstream?.bridge?.dispatch;
    const proxy = keep(await startProxy({ mode, upstreamUrl: upstream?.url, upstreamDispatch, cacheDir }));
    session = keep(
      downstream === 'sse'
        ? await connectClient(proxy.url.replace(/\/mcp$/, '/sse'), { transport: 'sse' })
        : await connectClient(proxy.url),
    );
  }
  const results = await calls(session.client);
  await closeAll(); // client, proxy or CLI, then the upstream: the replay runs with the server gone
  return results;
}

// ---------------------------------------------------------------------------------------------------------------

describe('record → stop the upstream → replay, for every upstream × downstream transport', () => {
  const upstreams: EverythingTransport[] = ['stdio', 'sse', 'streamableHttp'];
  const downstreams: Downstream[] = ['streamableHttp', 'sse', 'stdio'];
  const combinations = upstreams.flatMap((up) => downstreams.map((down) => [up, down] as const));

  it.each(combinations)('upstream %s → downstream %s', async (up, down) => {
    const cacheDir = await tempDir();
    const live = await run(down, 'record', cacheDir, up);
    expect(live.server?.name).toBe('mcp-servers/everything');
    expect(live.tools.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
    expect(live.echo.content).toEqual([{ type: 'text', text: 'Echo: over any transport' }]);
    expect(live.sum.content).toEqual([{ type: 'text', text: 'The sum of 19 and 23 is 42.' }]);
    const replayed = await run(down, 'replay', cacheDir);
    expect(replayed).toEqual(live);
  });
});

describe('stdio upstream', () => {
  it('relays progress notifications live, before the answer — and a sampling request, to the client that caused it', async () => {
    const bridge = keep(
      await startUpstreamBridge({ kind: 'stdio', command: process.execPath, args: STDIO_ARGS }, quiet),
    );
    const proxy = keep(await proxyOverBridge(bridge, { mode: 'record' }));
    const c = keep(await connectClient(proxy.url));
    const progress: Array<Progress & { at: number }> = [];
    const started = Date.now();
    const result = await c.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      undefined,
      {
        onprogress: (p) => progress.push({ ...p, at: Date.now() }),
      },
    );
    const answeredAt = Date.now();
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(progress[0].at - started).toBeGreaterThanOrEqual(150); // one step of 200 ms…
    expect(answeredAt - progress[0].at).toBeGreaterThanOrEqual(250); // …streamed while the call still ran
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
    const sampled = await c.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello there' } });
    expect(JSON.stringify(sampled.content)).toContain('sampled-Resource trigger-sampling-request context: hello there');
    expect(c.errors).toEqual([]);
  });

  it('captures the child stderr line by line, and a command that cannot start answers initialize with an error', async () => {
    const lines: string[] = [];
    const bridge = keep(
      await startUpstreamBridge({ kind: 'stdio', command: process.execPath, args: STDIO_ARGS }, (line) =>
        lines.push(line),
      ),
    );
    keep(await connectClient(bridge.url));
    await expect.poll(() => lines.join('\n')).toContain('Starting default (STDIO) server...');

    const broken = keep(
      await startUpstreamBridge({ kind: 'stdio', command: path.join(REPO, 'no-such-command'), args: [] }, quiet),
    );
    await expect(connectClient(broken.url)).rejects.toThrow(/could not start the upstream command/);
  });

  it('a child that dies mid-session is started again: the next call is answered (own-session modes reconnect)', async () => {
    const lines: string[] = [];
    const bridge = keep(
      await startUpstreamBridge({ kind: 'stdio', command: process.execPath, args: STDIO_ARGS }, (line) =>
        lines.push(line),
      ),
    );
    const proxy = keep(await proxyOverBridge(bridge, { mode: 'hybrid' }));
    const c = keep(await connectClient(proxy.url));
    expect((await c.client.callTool({ name: 'echo', arguments: { message: 'before' } })).content).toEqual([
      { type: 'text', text: 'Echo: before' },
    ]);
    const [first] = bridge.pids();
    expect(bridge.pids()).toHaveLength(1);

    process.kill(first, 'SIGKILL');
    await expect.poll(() => bridge.pids()).toEqual([]);
    await expect.poll(() => lines.join('\n')).toMatch(/exited \(signal SIGKILL\)/);

    expect((await c.client.callTool({ name: 'echo', arguments: { message: 'after' } })).content).toEqual([
      { type: 'text', text: 'Echo: after' },
    ]);
    expect(bridge.pids()).toHaveLength(1);
    expect(bridge.pids()[0]).not.toBe(first);
  });

  it('through the CLI in --stdio record mode (the upstream session id handed through): the pipe re-initializes', async () => {
    const cacheDir = await tempDir();
    const cli = keep(await stdioCli(['--cache', cacheDir, '--upstream-command', STDIO_COMMAND_LINE]));
    expect((await cli.client.callTool({ name: 'echo', arguments: { message: 'one' } })).content).toEqual([
      { type: 'text', text: 'Echo: one' },
    ]);
    const child = await serverChildOf(cli.pid);
    process.kill(child, 'SIGKILL');
    await expect.poll(() => alive(child)).toBe(false);
    await expect.poll(() => cli.stderr()).toMatch(/exited \(signal SIGKILL\)/);
    expect((await cli.client.callTool({ name: 'echo', arguments: { message: 'two' } })).content).toEqual([
      { type: 'text', text: 'Echo: two' },
    ]);
    expect(await serverChildOf(cli.pid)).not.toBe(child);

    // the end of stdin ends the run: exit status 0, children gone
    await cli.close();
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toContain('record mode'); // the banner went to stderr
  });
});

describe('detection and the CLI flags', () => {
  it('detectUpstreamKind names a server that is neither, and keeps the network error code', async () => {
    const plain = http.createServer((_req, res) => res.writeHead(404).end('nothing here'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/mcp`;
    await expect(detectUpstreamKind(url)).rejects.toThrow(
      /POST initialize answered HTTP 404 and GET \(legacy HTTP\+SSE\) answered HTTP 404/,
    );
    await new Promise<void>((resolve) => plain.close(() => resolve()));
    await expect(detectUpstreamKind(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('splits --upstream-command like sh, without a shell', () => {
    expect(splitShellWords(`node "my server.js" --name 'a b' x\\ y "q\\"uote" '' $HOME`)).toEqual([
      'node',
      'my server.js',
      '--name',
      'a b',
      'x y',
      'q"uote',
      '',
      '$HOME',
    ]);
    expect(() => splitShellWords(`node "open`)).toThrow(/unterminated/);
  });

  it.each([
    { args: ['--url', 'http://127.0.0.1:1/mcp', '--upstream-command', 'node x.js'], mentions: '--upstream-command' },
    { args: ['--upstream-command', 'node "x.js'], mentions: 'unterminated' },
    { args: ['--upstream-command', '   '], mentions: '--upstream-command' },
  ])('usage error, exit 2: $args', async ({ args, mentions }) => {
    const { code, stderr } = await runCli(args);
    expect(code, stderr).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(mentions);
  });
});

afterAll(async () => {
  await closeAll();
  // nothing this file started may outlive it (a closing child gets stdin EOF, SIGTERM after 2 s, SIGKILL after 4 s)
  let left: string[] = [];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    left = (await psLines()).filter((line) => line.includes(MARKER));
    if (left.length === 0) return;
  }
  throw new Error(`server processes left behind:\n${left.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------------------------
// process helpers

function psLines(): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,args='], { maxBuffer: 16 * 1024 * 1024 }, (error, out) =>
      error ? reject(error) : resolve(out.split('\n').filter(Boolean)),
    ),
  );
}

/** The pid of the stdio server the CLI `parent` runs (polls until there is exactly one: the start-up probe's ends). */
async function serverChildOf(parent: number): Promise<number> {
  let found: number[] = [];
  await expect
    .poll(
      async () => {
        const lines = (await psLines())
          .map((l) => l.trim().split(/\s+/))
          .filter(([, ppid, ...args]) => Number(ppid) === parent && args.join(' ').includes(MARKER));
        found = lines.map((line) => Number(line[0]));
        return found.length;
      },
      { timeout: 5_000 },
    )
    .toBe(1);
  return found[0];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}
