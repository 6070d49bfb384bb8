/**
 * Real traffic into a real `mcp-rewind ui` process, for the UI benches: the built CLI started on a temp data folder,
 * its WebSocket API as a script uses it, a minimal upstream (node:http answering the canned tools/call result), a
 * proxy-only proxy created through the API, and `n` tools/call sent through it; the process's RSS read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { argumentsFor, INITIALIZE_RESULT, toolResult } from './cassette-gen.js';
import { LoadClient } from './load.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface UiUnderTest {
  child: ChildProcess;
  pid: number;
  /** the link with its one-time code, to open in a browser */
  url: string;
  origin: string;
  token(): string;
  stop(): Promise<void>;
}

export async function startUi(dataDir: string, nodeOptions = ''): Promise<UiUnderTest> {
  for (const built of ['dist/main/cli.js', 'out/renderer/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const child = spawn(process.execPath, [join(ROOT, 'bin/mcp-rewind.js'), 'ui', '--no-open', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir, NODE_OPTIONS: nodeOptions },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s:\n${out}`)), 15_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const found = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?code=[A-Za-z0-9_-]+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`mcp-rewind ui exited (${code}):\n${out}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    pid: child.pid!,
    url,
    origin: new URL(url).origin,
    token: () => readFileSync(join(dataDir, 'ui-token'), 'utf8').trim(),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** resident memory of a process (MB), from /proc */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

export interface UiApi {
  call<T = unknown>(command: string, input?: unknown): Promise<T>;
  onEvent(listener: (event: string, payload: unknown) => void): void;
  close(): void;
}

/** the UI's WebSocket API as a script uses it (Authorization: Bearer) */
export async function uiApi(ui: UiUnderTest): Promise<UiApi> {
  const ws = new WebSocket(`${ui.origin.replace('http', 'ws')}/api`, {
    headers: { authorization: `Bearer ${ui.token()}` },
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners: Array<(event: string, payload: unknown) => void> = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as {
      id?: number;
      ok?: boolean;
      output?: unknown;
      error?: { message: string };
      event?: string;
      payload?: unknown;
    };
    if (frame.event) for (const l of listeners) l(frame.event, frame.payload);
    const w = frame.id === undefined ? undefined : waiting.get(frame.id);
    if (!w) return;
    waiting.delete(frame.id!);
    if (frame.ok) w.resolve(frame.output);
    else w.reject(new Error(frame.error?.message));
  });
  return {
    call: <T>(command: string, input: unknown = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, command, input }));
      }),
    onEvent: (listener) => void listeners.push(listener),
    close: () => ws.terminate(),
  };
}

/** the minimal upstream: initialize answered, every other request with the canned tools/call result */
export async function cannedUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const result = JSON.stringify(toolResult(0));
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end(); // no GET stream
      const { id, method } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string };
      if (id === undefined) return void res.writeHead(202).end();
      const answer = method === 'initialize' ? JSON.stringify(INITIALIZE_RESULT) : result;
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${answer}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** the proxy's local endpoint once it runs */
async function proxyUrl(api: UiApi, id: string): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const proxy = (await api.call<Array<{ id: string; url?: string; error?: string }>>('proxies.list')).find(
      (p) => p.id === id,
    );
    if (proxy?.url) return proxy.url;
    if (proxy?.error) throw new Error(`the proxy failed: ${proxy.error}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the proxy did not start within 10 s');
}

/** Sends `n` tools/call through a new proxy-only proxy of the UI; resolves once the UI counts them all. */
export async function sendExchanges(api: UiApi, upstreamUrl: string, n: number): Promise<void> {
  const { id } = await api.call<{ id: string }>('proxies.create', { mode: 'proxy-only', upstreamUrl });
  const load = new LoadClient(await proxyUrl(api, id), 8);
  await load.handshake();
  // 20 tools (the Timeline's Tool filter has a choice), distinct arguments and ids (no "id reused" finding)
  const bodies = Array.from({ length: n }, (_, i) =>
    Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: `tool-${i % 20}`, arguments: argumentsFor(i) },
      }),
    ),
  );
  const result = await load.run(bodies, 8, Infinity, n);
  if (result.errors > 0) throw new Error(`${result.errors} of ${n} calls failed`);
  load.close();
}
