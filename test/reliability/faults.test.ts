/**
 * Fault injection: what a client sees when the upstream or the disk misbehaves. Each case records its
 * client-visible outcome into a figures table printed at the end (case, outcome, hang, cassette loadable).
 *
 * "No hang": every client call has a per-call timeout (10 s), and a failure must come from the proxy (a JSON-RPC
 * error, an HTTP error), never from that timeout (McpError -32001 RequestTimeout of the SDK client).
 *
 * Covered elsewhere, so neither run nor listed here (the table holds only what this file measures):
 * - upstream killed mid-SSE, upstream stopped mid-session: test/engine/robustness-faults.test.ts "upstream going away"
 * - kill -9 of a recording process, then replay: test/engine/robustness-faults.test.ts "cassette store survives kill -9"
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as SdkErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { CassetteStore } from '../../src/main/engine/cassette/store.js';
import { keyFor } from '../../src/main/engine/cassette/keys.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { startUpstreamBridge, type UpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { proxyOverBridge } from '../helpers/stdio-peers.js';
import {
  REPO,
  healthcheck,
  isDistilled,
  removeRobustTempDirs,
  tempDir,
  textOf,
  until,
} from '../engine/robustness-helpers.js';

const CALL_TIMEOUT_MS = 10_000;

interface Figure {
  case: string;
  outcome: string;
  hang: 'yes' | 'no' | '—';
  loadable: 'yes' | 'no' | '—';
}
const figures: Figure[] = [];

afterAll(async () => {
  const rows = [
    '| case | client-visible outcome | hang | cassette loadable |',
    '|---|---|:---:|:---:|',
    ...figures.map(
      (f) => `| ${f.case} | ${f.outcome.replaceAll('|', '\\|').replaceAll('\n', ' ')} | ${f.hang} | ${f.loadable} |`,
    ),
  ];
  const hangs = figures.filter((f) => f.hang === 'yes').length;
  console.log(`\nFault figures (${figures.length} cases, ${hangs} hangs)\n${rows.join('\n')}\n`);
  await removeRobustTempDirs();
});

/** A call's outcome: its result text, or the error — with how long it took; never the client-side timeout. */
async function outcomeOf(
  client: ConnectedClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text?: string; error?: Error; ms: number; hang: boolean }> {
  const t0 = performance.now();
  try {
    const result = await client.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    return { text: textOf(result), ms: performance.now() - t0, hang: false };
  } catch (error) {
    const hang = error instanceof McpError && error.code === SdkErrorCode.RequestTimeout;
    return { error: error as Error, ms: performance.now() - t0, hang };
  }
}

/** one line, at most 140 characters (a ZodError's message is a page of JSON) */
const describeError = (e: Error | undefined): string => {
  const text =
    e instanceof McpError
      ? `McpError ${e.code}: ${e.message.replace(/^MCP error -?\d+: /, '')}`
      : `${e?.name}: ${e?.message}`;
  const line = text.replace(/\s+/g, ' ');
  return line.length > 140 ? `${line.slice(0, 137)}...` : line;
};

/** The folder loads as a cassette (replay open), every distilled file parses and no temp file is left. */
async function loadable(dir: string): Promise<boolean> {
  const names = await readdir(dir);
  if (names.some((n) => n.startsWith('.rewind-tmp-'))) return false;
  for (const name of names.filter(isDistilled)) JSON.parse(await readFile(path.join(dir, name), 'utf8'));
  const store = await CassetteStore.open(dir, { watch: false });
  store.close();
  return store.size === names.filter(isDistilled).length;
}

// ---------------------------------------------------------------------------------------------------------------
// a raw node:http upstream: a valid MCP server for initialize and the `ok` tool, garbage for the others

type Misbehave = (res: ServerResponse, req: IncomingMessage, id: unknown) => void;

const GARBAGE: Record<string, Misbehave> = {
  // 200 application/json whose body is not JSON
  nonjson: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('this is not { json'),
  // SSE that ends in the middle of an event, before any answer
  truncated_sse: (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: message\ndata: {"jsonrpc":"2.0","id":');
  },
  // a JSON-RPC answer declared as text/plain
  wrong_content_type: (res, _req, id) =>
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'plain' }] } })),
  // an HTML error page
  html_500: (res) =>
    res
      .writeHead(500, { 'content-type': 'text/html' })
      .end('<html><body><h1>500 Internal Server Error</h1></body></html>'),
  // JSON, but not JSON-RPC
  json_not_rpc: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}'),
  // 200 with an empty body
  empty_200: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(),
  // connection reset before any byte of the answer
  reset_before_head: (res) => res.socket?.destroy(),
  // connection reset after the head and part of an SSE event
  reset_mid_sse: (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\nevent: message\ndata: {"jsonrpc"',
    );
    setTimeout(() => res.socket?.destroy(), 50);
  },
  // connection reset in the middle of a JSON body (Content-Length promises more)
  reset_mid_json: (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"jsonrpc":"2.0","id":');
    setTimeout(() => res.socket?.destroy(), 50);
  },
};

interface RawUpstream {
  url: string;
  close(): Promise<void>;
}

async function startGarbageUpstream(): Promise<RawUpstream> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id?: unknown;
        method?: string;
        params?: { name?: string; arguments?: { text?: string } };
      };
      if (message.id === undefined) return void res.writeHead(202).end();
      const json = (result: unknown): void =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.method === 'initialize')
        return json({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'garbage', version: '1' },
        });
      if (message.method === 'tools/list')
        return json({
          tools: [
            { name: 'ok', inputSchema: { type: 'object' } },
            ...Object.keys(GARBAGE).map((name) => ({ name, inputSchema: { type: 'object' } })),
          ],
        });
      const name = message.params?.name ?? '';
      if (message.method === 'tools/call' && name === 'ok')
        return json({ content: [{ type: 'text', text: `ok ${message.params?.arguments?.text ?? ''}` }] });
      if (message.method === 'tools/call' && Object.hasOwn(GARBAGE, name)) return GARBAGE[name](res, req, message.id);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------

describe('faults', () => {
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;
  let raw: RawUpstream | undefined;
  let custom: CustomUpstream | undefined;
  let sdk: SdkServerHandle | undefined;
  let bridge: UpstreamBridge | undefined;
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await raw?.close();
    await custom?.close();
    await sdk?.close();
    await bridge?.close();
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
    client = proxy = raw = custom = sdk = bridge = undefined;
  });

  it.each(['sse', 'json'] as const)(
    'upstream slower than upstreamTimeoutMs (%s answer): the client gets a JSON-RPC error promptly, no hang',
    async (kind) => {
      const release: Array<() => void> = [];
      cleanups.push(async () => release.forEach((r) => r()));
      let upstreamUrl: string;
      if (kind === 'sse') {
        // an SDK server whose tool sleeps 5 s: SSE answers send their head at once, so the abort breaks the stream
        custom = await startCustomUpstream(() => {
          const server = new Server({ name: 'slow', version: '1.0.0' }, { capabilities: { tools: {} } });
          server.setRequestHandler(ListToolsRequestSchema, () => ({
            tools: [
              { name: 'slow', inputSchema: { type: 'object' } },
              { name: 'ok', inputSchema: { type: 'object' } },
            ],
          }));
          server.setRequestHandler(CallToolRequestSchema, async (request) => {
            if (request.params.name === 'slow')
              await new Promise<void>((resolve) => release.push(resolve) && setTimeout(resolve, 5_000));
            return {
              content: [
                {
                  type: 'text',
                  text: `ok ${String((request.params.arguments as { text?: string } | undefined)?.text ?? '')}`,
                },
              ],
            };
          });
          return server;
        });
        upstreamUrl = custom.url;
      } else {
        // JSON answers: the head comes with the result, after 5 s; the abort hits before any byte
        const server = http.createServer((req, res) => {
          const chunks: Buffer[] = [];
          req
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => {
              const m = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
                id?: unknown;
                method?: string;
                params?: { name?: string; arguments?: { text?: string } };
              };
              if (m.id === undefined) return void res.writeHead(202).end();
              const answer = (result: unknown): void =>
                void res
                  .writeHead(200, { 'content-type': 'application/json' })
                  .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
              if (m.method === 'initialize')
                return answer({
                  protocolVersion: '2025-06-18',
                  capabilities: { tools: {} },
                  serverInfo: { name: 'slow-json', version: '1' },
                });
              const timer = setTimeout(
                () => answer({ content: [{ type: 'text', text: `ok ${m.params?.arguments?.text ?? ''}` }] }),
                m.params?.name === 'slow' ? 5_000 : 0,
              );
              release.push(() => clearTimeout(timer));
            });
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        raw = {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
          close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
        };
        upstreamUrl = raw.url;
      }
      const dir = path.join(await tempDir(), 'cassette');
      const warnings: string[] = [];
      proxy = await startProxy({
        mode: 'record',
        upstreamUrl,
        cacheDir: dir,
        upstreamTimeoutMs: 500,
        onLog: (line, level) => level === 'warn' && warnings.push(line),
      });
      client = await connectClient(proxy.url);

      const slow = await outcomeOf(client, 'slow');
      expect(slow.hang, describeError(slow.error)).toBe(false);
      expect(slow.error).toBeInstanceOf(McpError);
      expect((slow.error as McpError).code).toBe(-32005);
      expect(slow.ms).toBeLessThan(4_000); // the proxy's 500 ms, not the upstream's 5 s
      const after = await outcomeOf(client, 'ok', { text: 'after' });
      expect(after.text).toBe('ok after');
      await proxy.flush();
      expect((await readdir(dir)).filter((n) => n.includes('tools_call_slow'))).toEqual([]);
      const cassetteOk = await loadable(dir);
      figures.push({
        case: `upstream slower than upstreamTimeoutMs=500 (${kind} answer, tool sleeps 5 s)`,
        outcome: `${describeError(slow.error)} after ${slow.ms.toFixed(0)} ms; next call: ${after.text ?? describeError(after.error)}`,
        hang: slow.hang || after.hang ? 'yes' : 'no',
        loadable: cassetteOk ? 'yes' : 'no',
      });
      expect(cassetteOk).toBe(true);
    },
  );

  it.each(Object.keys(GARBAGE))(
    'upstream misbehaves on a tools/call (%s): a clear error, no hang, the proxy serves on',
    async (name) => {
      raw = await startGarbageUpstream();
      const dir = path.join(await tempDir(), 'cassette');
      proxy = await startProxy({ mode: 'record', upstreamUrl: raw.url, cacheDir: dir });
      client = await connectClient(proxy.url);
      const bad = await outcomeOf(client, name);
      const next = await outcomeOf(client, 'ok', { text: 'next' });
      const health = (await healthcheck(proxy)).status;
      await proxy.flush();
      const cassetteOk = await loadable(dir);
      const outcome = bad.error ? describeError(bad.error) : `result "${bad.text}"`;
      figures.push({
        case: `upstream garbage: ${name}`,
        outcome: `${outcome} (${bad.ms.toFixed(0)} ms); next call: ${next.text ?? describeError(next.error)}`,
        hang: bad.hang || next.hang ? 'yes' : 'no',
        loadable: cassetteOk ? 'yes' : 'no',
      });

      expect(bad.hang, outcome).toBe(false);
      expect(next.text).toBe('ok next');
      expect(health).toBe(200);
      expect(cassetteOk).toBe(true);
      // garbage is never recorded as an answer. text/plain carrying a valid JSON-RPC result is: the tap reads any
      // non-SSE body as JSON (lenient by design), so replay later serves it as application/json, which the client accepts
      const recorded = (await readdir(dir)).filter((n) => isDistilled(n) && n.includes(`tools_call_${name}`));
      expect(recorded).toHaveLength(name === 'wrong_content_type' ? 1 : 0);
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// the disk fails under a recording proxy

describe('cassette folder faults while recording', () => {
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;
  let sdk: SdkServerHandle | undefined;
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await sdk?.close();
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
    client = proxy = sdk = undefined;
  });

  const diskFigure = (name: string, m: Awaited<ReturnType<typeof recordAcross>>): Figure => ({
    case: name,
    outcome: m.outcome,
    hang: m.hang ? 'yes' : 'no',
    loadable: m.loadable ? 'yes' : 'no',
  });

  /** record `before`, break the disk, call `during` (must still be answered live), repair, record `after` */
  async function recordAcross(
    dir: string,
    breakDisk: () => Promise<void>,
    repair: () => Promise<void>,
  ): Promise<{ warnings: string[]; outcome: string; hang: boolean; loadable: boolean }> {
    sdk = await startSdkServer();
    const warnings: string[] = [];
    proxy = await startProxy({
      mode: 'record',
      upstreamUrl: sdk.url,
      cacheDir: dir,
      onLog: (line, level) => void (level === 'warn' && warnings.push(line)),
    });
    client = await connectClient(proxy.url);
    expect((await outcomeOf(client, 'echo', { text: 'before' })).text).toBe('echo: before');
    await proxy.flush();

    await breakDisk();
    const during = await outcomeOf(client, 'echo', { text: `during ${'x'.repeat(20_000)}` });
    await proxy.flush();
    expect(during.hang).toBe(false);
    expect(during.text, describeError(during.error)).toBe(`echo: during ${'x'.repeat(20_000)}`); // the live answer, despite the disk
    expect(
      warnings.some((w) => w.startsWith('cassette: could not record')),
      warnings.join('\n'),
    ).toBe(true);
    expect((await healthcheck(proxy)).status).toBe(200);

    await repair();
    const after = await outcomeOf(client, 'echo', { text: 'after' });
    expect(after.text).toBe('echo: after');
    await proxy.flush();

    // what was recorded is loadable and replays; the failed exchange is simply absent
    const cassetteOk = await loadable(dir);
    expect(cassetteOk).toBe(true);
    const replay = await CassetteStore.open(dir, { watch: false });
    replay.close();
    const key = (text: string): string =>
      keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text } } });
    expect(replay.lookup(key('before'))).toHaveLength(1);
    expect(replay.lookup(key('after'))).toHaveLength(1);
    const duringRecorded = replay.lookup(key(`during ${'x'.repeat(20_000)}`)) !== undefined;
    expect(duringRecorded).toBe(false);
    const failure = warnings.find((w) => w.startsWith('cassette: could not record')) ?? '';
    const answered = (o: Awaited<ReturnType<typeof outcomeOf>>): string =>
      o.text === undefined ? describeError(o.error) : `answered (${o.text.length} characters)`;
    const outcome =
      `during: ${answered(during)}, ${duringRecorded ? 'recorded' : 'not recorded'}; logged "${failure.slice(0, 110)}"; ` +
      `after repair: ${answered(after)}, ${replay.lookup(key('after')) ? 'recorded' : 'not recorded'}`;
    return { warnings, outcome, hang: during.hang || after.hang, loadable: cassetteOk };
  }

  it('read-only cassette folder: the client gets its live answer, the failure is logged, no crash', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    let method = '';
    let repair = async (): Promise<void> => {};
    const measured = await recordAcross(
      dir,
      async () => {
        await chmod(dir, 0o555);
        const probe = path.join(dir, '.write-probe');
        if (
          await writeFile(probe, 'x').then(
            () => false,
            () => true,
          )
        ) {
          method = 'chmod 0555';
          repair = () => chmod(dir, 0o755);
          return;
        }
        // root (CI): permission bits do not stop writes. Simulate: the folder's path now names a regular FILE, so
        // every write below it fails with ENOTDIR; the real folder waits aside and comes back on repair.
        await rm(probe);
        await chmod(dir, 0o755);
        method = 'running as root, chmod does not stop writes: folder path replaced by a regular file (ENOTDIR)';
        await rename(dir, `${dir}.aside`);
        await writeFile(dir, 'not a folder');
        repair = async () => {
          await rm(dir, { force: true });
          await rename(`${dir}.aside`, dir);
        };
        cleanups.push(repair);
      },
      () => repair(),
    );
    console.log(`read-only case simulated by: ${method}`);
    figures.push(diskFigure(`cassette folder read-only (${method})`, measured));
  });

  it('full disk (ENOSPC on a 64 kB tmpfs): the client gets its live answer, the failure is logged, no crash', async (ctx) => {
    const mnt = await tempDir();
    try {
      if (process.platform !== 'linux') throw new Error(`not Linux (${process.platform})`);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'pipe' });
    } catch (error) {
      const reason = `cannot mount a tmpfs (${((error as Error).message.split('\n')[0] ?? '').trim()}): the write-failure path is covered by the read-only case`;
      console.log(`full-disk case skipped: ${reason}`);
      figures.push({ case: 'cassette folder full (ENOSPC)', outcome: `skipped: ${reason}`, hang: '—', loadable: '—' });
      ctx.skip();
      return;
    }
    cleanups.push(async () => void execFileSync('umount', ['-l', mnt], { stdio: 'pipe' }));
    const dir = path.join(mnt, 'cassette');
    await mkdir(dir);
    const filler = path.join(mnt, 'filler');
    const measured = await recordAcross(
      dir,
      async () => {
        // fill the file system: the write fails part-way with ENOSPC and leaves the partial filler behind
        const full = await writeFile(filler, Buffer.alloc(1024 * 1024, 1)).then(
          () => 'not full',
          (e: NodeJS.ErrnoException) => e.code,
        );
        expect(full).toBe('ENOSPC');
      },
      () => rm(filler),
    );
    expect(measured.warnings.find((w) => w.startsWith('cassette: could not record'))).toContain('ENOSPC');
    figures.push(diskFigure('cassette folder full (ENOSPC, 64 kB tmpfs filled up)', measured));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// a stdio upstream that crashes

describe('stdio upstream crashing', () => {
  let proxy: RunningProxy | undefined;
  let bridge: UpstreamBridge | undefined;
  const clients: ConnectedClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    await proxy?.close();
    await bridge?.close();
    proxy = bridge = undefined;
  });

  // record mirrors the upstream's sessions (the client sees the bridge's 404 and must reconnect); hybrid owns its
  // sessions and reconnects by itself, which respawns the child
  it.each([
    ['record', 'after'],
    ['record', 'during'],
    ['hybrid', 'after'],
    ['hybrid', 'during'],
  ] as const)(
    '%s mode, the child exits %s its 2nd tool call: the next call is answered after a respawn or fails clearly, no hang',
    async (mode, when) => {
      const log: string[] = [];
      bridge = await startUpstreamBridge(
        {
          kind: 'stdio',
          command: process.execPath,
          args: ['--import', 'tsx', path.join(REPO, 'test/helpers/crashing-stdio-server.ts'), when],
          cwd: REPO,
        },
        (line) => void log.push(line),
      );
      const dir = path.join(await tempDir(), 'cassette');
      proxy = await proxyOverBridge(bridge, { mode, cacheDir: dir });
      const client = await connectClient(proxy.url);
      clients.push(client);

      const first = await outcomeOf(client, 'echo', { text: 'one' });
      expect(first.text).toMatch(/^echo: one \(pid \d+, call 1\)$/);
      const pid1 = Number(/pid (\d+)/.exec(first.text ?? '')?.[1]);
      const second = await outcomeOf(client, 'echo', { text: 'two' });
      expect(second.hang).toBe(false);
      if (when === 'after') expect(second.text).toMatch(/call 2\)$/);
      else {
        expect(second.error).toBeInstanceOf(McpError);
        expect((second.error as McpError).code).toBe(-32005);
      }
      await until(() => !bridge!.pids().includes(pid1), 5_000, 'the child exiting');

      const third = await outcomeOf(client, 'echo', { text: 'three' });
      expect(third.hang, describeError(third.error)).toBe(false);
      let outcome: string;
      if (mode === 'hybrid') {
        // the proxy reopened its upstream session: a new child answers
        expect(third.text, describeError(third.error)).toMatch(/^echo: three \(pid \d+, call 1\)$/);
        expect(Number(/pid (\d+)/.exec(third.text ?? '')?.[1])).not.toBe(pid1);
        outcome = `3rd call answered by a respawned child (pid ${pid1} → ${/pid (\d+)/.exec(third.text ?? '')?.[1]})`;
      } else {
        // mirrored session: the client sees the bridge's 404 (session gone) at once; a reconnect spawns a new child
        expect(third.error).toBeDefined();
        const again = await connectClient(proxy.url);
        clients.push(again);
        const fourth = await outcomeOf(again, 'echo', { text: 'four' });
        expect(fourth.text).toMatch(/^echo: four \(pid \d+, call 1\)$/);
        outcome = `3rd call: ${describeError(third.error).slice(0, 90)}; a new client session is answered by a respawned child`;
      }
      if (when === 'during') outcome = `2nd call: ${describeError(second.error).slice(0, 100)}; ${outcome}`;
      expect((await healthcheck(proxy)).status).toBe(200);
      await proxy.flush();
      const ok = await loadable(dir);
      expect(ok).toBe(true);
      const hang = [first, second, third].some((o) => o.hang);
      figures.push({
        case: `stdio upstream exits ${when} its 2nd call (${mode})`,
        outcome,
        hang: hang ? 'yes' : 'no',
        loadable: ok ? 'yes' : 'no',
      });
    },
  );
});
