/**
 * The fuzz runner: starts REAL instances in this process and sends generated hostile inputs (generators.ts) over
 * loopback, one target after the other, counting per target: inputs, status histogram, 5xx, crashes (the health
 * probe stops answering after an input), hangs (no answer within the timeout), RSS before / after (after a forced GC
 * when node runs with --expose-gc). Every `clientEvery` inputs a real SDK client must still work.
 *
 *   mcp-record   startProxy record mode in front of a real SDK server (test/fixtures/sdk-server.ts), MCP at any path
 *   mcp-replay   startProxy replay mode on a cassette recorded first (no upstream)
 *   legacy-sse   the record proxy's legacy HTTP+SSE: GET /sse, POST /messages?sessionId=
 *   rest         startServe (API token) REST /api/* with a live session and a "victim" session to PUT/DELETE
 *   serve-mcp    startServe's token-gated MCP endpoint (/mcp + Bearer, X-MiMCP-Session, /s/<token>/mcp)
 *   ui-page      startUi (AppController + the real handler table): the page, assets, token, upgrade abuse
 *   ui-ws        the same shell's WebSocket bridge /api, frames from an authenticated connection
 *
 * A finding (5xx, hang, crash, client failure, uncaught error) carries (seed, target, index): `inputFor(seed, target,
 * index)` regenerates the exact input.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { RENDERER_DIR, startUi, type RunningUi } from '../../src/main/cli/ui-command.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { startServe, type RunningServe } from '../../src/main/engine/serve.js';
import { connectClient, type ConnectClientOptions } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import {
  ACCEPT,
  generate,
  rngFor,
  type EndpointKind,
  type FuzzInput,
  type HttpInput,
  type Rng,
  type WsInput,
} from './generators.js';

export const TARGETS = ['mcp-record', 'mcp-replay', 'legacy-sse', 'rest', 'serve-mcp', 'ui-page', 'ui-ws'] as const;
export type TargetName = (typeof TARGETS)[number];

export interface FuzzOptions {
  seed: number;
  /** inputs per target */
  count: number;
  targets?: readonly TargetName[];
  /** per-request timeout: no answer within it is a hang. Default 5000 ms */
  timeoutMs?: number;
  /** a real SDK client call after every this many inputs of a target. Default 250 */
  clientEvery?: number;
  /** inputs in flight per target. Default 4 */
  concurrency?: number;
  /** inputs of a known issue (KNOWN_ISSUES): 'skip' = not sent (test suite), 'send' = sent and tagged. Default 'send' */
  known?: 'skip' | 'send';
  log?: (line: string) => void;
}

export type FindingKind = '5xx' | 'hang' | 'crash' | 'client' | 'uncaught';

export interface Finding {
  kind: FindingKind;
  target: TargetName;
  seed: number;
  /** the input's index (-1: not attributable to one input) */
  index: number;
  label: string;
  detail: string;
  /** the start of the request as sent (placeholders filled in) */
  preview: string;
  /** the id of the known issue this input triggers, if any */
  known?: string;
}

export interface TargetFigures {
  target: TargetName;
  inputs: number;
  /** status code (or outcome: reset, closed, ws-ok, ws-error, close-1009, …) → count */
  statuses: Record<string, number>;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  /** 1xx/3xx, resets and closes without a status (refused connections, oversized bodies cut short) */
  other: number;
  crashes: number;
  hangs: number;
  /** inputs of a known issue: not sent ('skip'), or sent and their 5xx / crash / hang counted here too ('send') */
  knownSkipped: number;
  knownFailures: number;
  clientChecks: number;
  clientFailures: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
  seconds: number;
}

export interface FuzzReport {
  seed: number;
  count: number;
  gc: boolean;
  targets: TargetFigures[];
  findings: Finding[];
  /** a real SDK client works against every target at the end */
  finalClientOk: boolean;
}

const KIND: Record<TargetName, EndpointKind> = {
  'mcp-record': 'mcp',
  'mcp-replay': 'mcp',
  'legacy-sse': 'legacy',
  rest: 'rest',
  'serve-mcp': 'mcp',
  'ui-page': 'page',
  'ui-ws': 'ws',
};

const API_TOKEN = 'fuzz-api-token-0123456789';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The input `index` of `target` under `seed`, exactly as the runner generated it. */
export function inputFor(seed: number, target: TargetName, index: number): FuzzInput {
  const r = rngFor(seed, target, index);
  if (target === 'serve-mcp') {
    return generate('mcp', r, index, {
      mcpPaths: ['/mcp', '/s/{{TOKEN}}/mcp', '/s/bogus/mcp', '/s/%E0%A4%A/mcp', '/s/%/mcp', '/'],
      mcpAuth: (rr: Rng): Record<string, string> =>
        rr.chance(0.7)
          ? { authorization: 'Bearer {{TOKEN}}' }
          : rr.chance(0.5)
            ? { 'x-mimcp-session': '{{TOKEN}}' }
            : {},
    });
  }
  return generate(KIND[target], r, index, { mcpPaths: ['/mcp', '/', '/anything/else', '/mcp/'] });
}

// ---------------------------------------------------------------------------------------------------------------
// known issues: inputs that fuzzing found to fail in src/ (reported, not fixed here). `known: 'skip'` (the test suite)
// does not send them; `known: 'send'` (the benchmark) sends them and tags what they cause with the issue's id.

export interface KnownIssue {
  id: string;
  what: string;
  /** the request as it will be sent (path, headers; raw bytes for raw inputs) */
  matches(
    target: TargetName,
    request: { path: string; headers: Record<string, string | string[]>; body?: Buffer; raw?: string },
  ): boolean;
}

/**
 * Found by this fuzzer and fixed in src/ since (commit 6eee752: safeDecode / requestUrl in http/url.ts); their inputs
 * are sent again by every run as regression checks:
 * - serve: /s/<token>/… with a malformed %-escape in <token> → 500 (decodeURIComponent in engine/serve.ts)
 * - serve REST: /api/sessions/<sid> with a malformed %-escape → 500 (decodeURIComponent in rest/router.ts)
 * - proxy: request target exactly "//" → 500 (new URL("//", base) throws in transports/downstream-sse.ts), any mode
 * - browser shell: token cookie with a malformed %-escape → 500 on the page, and on the /api upgrade an uncaught
 *   URIError thrown from the 'upgrade' listener (no answer; kills a process without an uncaughtException handler)
 */
/** Inputs of issues found and not fixed yet (sent by the bench, skipped by the test suite). Empty: every finding so far is fixed. */
export const KNOWN_ISSUES: KnownIssue[] = [];

export function knownIssueOf(
  target: TargetName,
  request: { path: string; headers: Record<string, string | string[]>; body?: Buffer; raw?: string },
): KnownIssue | undefined {
  return KNOWN_ISSUES.find((k) => k.matches(target, request));
}

// ---------------------------------------------------------------------------------------------------------------
// the instances

interface Instances {
  sandbox: string;
  upstream: SdkServerHandle;
  record: RunningProxy;
  replay: RunningProxy;
  serve: RunningServe;
  ui: RunningUi;
  health: { id: string; token: string };
  victim: { id: string; token: string };
  /** open legacy SSE connections (sessionIds) */
  legacy: LegacyStream[];
  close(): Promise<void>;
}

interface LegacyStream {
  sessionId: string;
  close(): void;
  alive(): boolean;
}

async function restJson(
  url: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** a serve session: its id (REST paths) and its agent token (the MCP endpoint) */
async function createSession(serve: RunningServe, body: unknown): Promise<{ id: string; token: string }> {
  const { status, json } = await restJson(`${serve.url}/api/sessions`, 'POST', body);
  if (status !== 201) throw new Error(`cannot create a serve session: ${status} ${JSON.stringify(json)}`);
  return { id: json.session_id as string, token: (json.mcp as { token: string }).token };
}

/** GET /sse on the record proxy, kept open and drained; resolves with the session id of its endpoint event */
function openLegacy(port: number): Promise<LegacyStream> {
  return new Promise((resolve, reject) => {
    let alive = true;
    const req = http.get(
      { host: '127.0.0.1', port, path: '/sse', headers: { accept: 'text/event-stream' }, agent: false },
      (res) => {
        let buffer = '';
        let done = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (done) return;
          buffer += chunk;
          const m = /sessionId=([^\s&]+)/.exec(buffer);
          if (m) {
            done = true;
            resolve({ sessionId: m[1], close: () => req.destroy(), alive: () => alive });
          }
        });
        res.on('close', () => {
          alive = false;
          if (!done) reject(new Error('legacy SSE stream closed before its endpoint event'));
        });
      },
    );
    req.on('error', (error) => {
      alive = false;
      reject(error);
    });
    req.setTimeout(5000, () => {
      if (alive && req.socket?.bytesRead === 0) req.destroy(new Error('no legacy SSE answer within 5 s'));
    });
  });
}

async function rendererDir(sandbox: string): Promise<string> {
  if (existsSync(path.join(RENDERER_DIR, 'index.html'))) return RENDERER_DIR;
  const dir = path.join(sandbox, 'renderer');
  mkdirSync(path.join(dir, 'assets'), { recursive: true });
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>fuzz</title>');
  return dir;
}

export async function startInstances(targets: readonly TargetName[]): Promise<Instances> {
  const sandbox = await mkdtemp(path.join(tmpdir(), 'rewind-fuzz-'));
  const closers: Array<() => Promise<void>> = [];
  const keep = <T extends { close(): Promise<void> }>(thing: T): T => {
    closers.push(() => thing.close());
    return thing;
  };
  const upstream = keep(await startSdkServer({ serverRequestTimeoutMs: 1000 }));
  const record = keep(
    await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: path.join(sandbox, 'record-cassette') }),
  );
  // the replay cassette: the handshake and one echo call, recorded through a proxy of its own
  const replayDir = path.join(sandbox, 'replay-cassette');
  const recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: replayDir });
  try {
    const c = await connectClient(recorder.url);
    await c.client.callTool({ name: 'echo', arguments: { text: 'after' } });
    await c.close();
    await recorder.flush();
  } finally {
    await recorder.close();
  }
  // the folder the UI's cassette commands get (a copy: a fuzzed write or delete never touches the replay cassette)
  await cp(replayDir, path.join(sandbox, 'cassette'), { recursive: true });
  const replay = keep(await startProxy({ mode: 'replay', cacheDir: replayDir }));
  // wrong tokens back off (auth-throttle.ts); the same gate here, with short delays so the run stays quick
  const serve = keep(
    await startServe({
      apiToken: API_TOKEN,
      supervisorIntervalMs: 2000,
      upstreamTimeoutS: 10,
      authThrottle: { baseDelayMs: 1, maxDelayMs: 20 },
    }),
  );
  const health = await createSession(serve, { name: 'health', upstream: { url: upstream.url } });
  const victim = await createSession(serve, {
    name: 'victim',
    upstream: { url: upstream.url },
    tools: [
      { name: 'fixed', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'fixed' } } },
    ],
  });
  const ui = await startUi({
    host: '127.0.0.1',
    port: 0,
    open: false,
    dataDir: path.join(sandbox, 'data'),
    version: '0.0.0-fuzz',
    rendererDir: await rendererDir(sandbox),
    onLog: () => {},
  });
  closers.push(() => ui.close());
  const legacy: LegacyStream[] = [];
  if (targets.includes('legacy-sse')) legacy.push(await openLegacy(record.port), await openLegacy(record.port));
  return {
    sandbox,
    upstream,
    record,
    replay,
    serve,
    ui,
    health,
    victim,
    legacy,
    async close() {
      for (const l of legacy) l.close();
      for (const close of closers.reverse()) await close().catch(() => {});
      await rm(sandbox, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// senders

type Outcome = { status: number } | { outcome: 'reset' | 'closed' | 'hang' | 'unsendable'; detail: string };

function fillText(text: string, values: Record<string, string>): string {
  return text.includes('{{')
    ? text.replace(/\{\{([A-Z]+)\}\}/g, (m, k: string) => (Object.hasOwn(values, k) ? values[k] : m))
    : text;
}

function fillBuffer(buf: Buffer, values: Record<string, string>): Buffer {
  if (!buf.includes('{{')) return buf;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const open = buf.indexOf('{{', at);
    if (open < 0) break;
    const close = buf.indexOf('}}', open + 2);
    if (close < 0 || close - open > 20) {
      parts.push(buf.subarray(at, open + 2));
      at = open + 2;
      continue;
    }
    const key = buf.subarray(open + 2, close).toString('latin1');
    parts.push(buf.subarray(at, open));
    parts.push(Object.hasOwn(values, key) ? Buffer.from(values[key]) : buf.subarray(open, close + 2));
    at = close + 2;
  }
  parts.push(buf.subarray(at));
  return Buffer.concat(parts);
}

interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  chunked?: boolean;
}

function prepare(
  input: HttpInput,
  values: Record<string, string>,
  session: Record<string, string> | undefined,
): Prepared {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(input.headers))
    headers[k] = Array.isArray(v) ? v.map((x) => fillText(x, values)) : fillText(v, values);
  if (input.session && session) for (const [k, v] of Object.entries(session)) if (!(k in headers)) headers[k] = v;
  const body = input.body && fillBuffer(input.body, values);
  if (body && !input.chunked) headers['content-length'] = String(body.length);
  return { method: input.method, path: fillText(input.path, values), headers, body, chunked: input.chunked };
}

function sendHttp(port: number, p: Prepared, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let status: number | undefined;
    const finish = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolve(o);
    };
    const timer = setTimeout(
      () =>
        finish(
          status === undefined
            ? { outcome: 'hang', detail: `no answer within ${timeoutMs} ms` }
            : { outcome: 'hang', detail: `status ${status}, body not finished within ${timeoutMs} ms` },
        ),
      timeoutMs,
    );
    let req: http.ClientRequest | undefined;
    try {
      req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: p.method,
          path: p.path,
          headers: p.headers,
          agent: false,
          setHost: !('host' in p.headers),
        },
        (res) => {
          status = res.statusCode ?? 0;
          // a server stream (GET, or a legacy /sse) stays open by design: its headers are the answer
          if (String(res.headers['content-type'] ?? '').includes('text/event-stream') && p.method !== 'POST')
            return finish({ status });
          res.on('data', () => {});
          res.on('end', () => finish({ status: status! }));
          res.on('error', () => finish({ status: status! }));
          res.on('close', () => finish({ status: status! }));
        },
      );
    } catch (error) {
      return finish({ outcome: 'unsendable', detail: (error as Error).message });
    }
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (status !== undefined) return finish({ status });
      finish({ outcome: 'reset', detail: error.code ?? error.message });
    });
    if (p.body && p.chunked) {
      for (let i = 0; i < p.body.length; i += 65536) req.write(p.body.subarray(i, i + 65536));
      req.end();
    } else req.end(p.body);
  });
}

function sendRaw(port: number, bytes: string, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let settled = false;
    const finish = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(
      () => finish({ outcome: 'hang', detail: `no answer and no close within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m) finish({ status: Number(m[1]) });
      else if (data.length > 16 || data.includes('\n'))
        finish({ outcome: 'closed', detail: `not an HTTP answer: ${JSON.stringify(data.slice(0, 40))}` });
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish({ outcome: 'reset', detail: error.code ?? error.message }),
    );
    socket.on('close', () => finish({ outcome: 'closed', detail: 'closed without an answer' }));
    socket.write(Buffer.from(bytes, 'latin1'));
  });
}

/** one authenticated WebSocket on the bridge; frames are sent one at a time and answered in order */
class Bridge {
  private ws?: WebSocket;
  private waiting?: (m: {
    frame?: { id?: unknown; ok?: boolean; error?: { message?: string } };
    close?: number;
  }) => void;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async open(): Promise<WebSocket> {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return this.ws;
    const ws = new WebSocket(this.url, ['mcp-rewind.v1', `mcp-rewind.token.${this.token}`]);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => {});
    ws.on('message', (data) => {
      let frame: { id?: unknown; event?: unknown };
      try {
        frame = JSON.parse(data.toString()) as { id?: unknown; event?: unknown };
      } catch {
        frame = { id: 'unparseable' };
      }
      if ('event' in frame && !('id' in frame)) return; // events are not answers
      this.waiting?.({ frame: frame as never });
    });
    ws.on('close', (code) => this.waiting?.({ close: code }));
    this.ws = ws;
    return ws;
  }

  async send(
    frame: string | Buffer,
    binary: boolean,
    timeoutMs: number,
  ): Promise<{ frame?: { id?: unknown; ok?: boolean; error?: { message?: string } }; close?: number } | undefined> {
    const ws = await this.open();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        ws.terminate(); // start afresh: a late answer must not be taken for the next frame's
        resolve(undefined);
      }, timeoutMs);
      this.waiting = (m) => {
        clearTimeout(timer);
        this.waiting = undefined;
        resolve(m);
      };
      ws.send(frame, { binary });
    });
  }

  close(): void {
    this.ws?.terminate();
  }
}

/** error messages that are a bug surfacing, not a refusal */
const INTERNAL =
  /Cannot read propert|is not a function|is not iterable|Maximum call stack|Cannot convert|is not defined|internal error|Unexpected token .* in JSON at position/;

// ---------------------------------------------------------------------------------------------------------------
// the run

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function settleMemory(): Promise<{ rss: number; heap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

function previewOf(p: Prepared | string | Buffer): string {
  if (typeof p === 'string') return JSON.stringify(p.slice(0, 200));
  if (Buffer.isBuffer(p)) return `binary ${p.length} bytes: ${JSON.stringify(p.subarray(0, 200).toString('latin1'))}`;
  const headers = Object.entries(p.headers)
    .map(([k, v]) => `${k}: ${String(v).slice(0, 60)}`)
    .join('; ');
  return `${p.method} ${p.path.slice(0, 120)} [${headers.slice(0, 300)}] ${p.body ? `${p.body.length} bytes: ${JSON.stringify(p.body.subarray(0, 200).toString('latin1'))}` : ''}`;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const targets = options.targets ?? TARGETS;
  const timeoutMs = options.timeoutMs ?? 5000;
  const clientEvery = options.clientEvery ?? 250;
  const concurrency = options.concurrency ?? 4;
  const log = options.log ?? (() => {});
  const findings: Finding[] = [];
  const figures: TargetFigures[] = [];
  let current: TargetName = targets[0];
  const onUncaught = (error: unknown): void => {
    findings.push({
      kind: 'uncaught',
      target: current,
      seed: options.seed,
      index: -1,
      label: 'uncaught exception / unhandled rejection',
      detail: String((error as Error)?.stack ?? error),
      preview: '',
    });
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const inst = await startInstances(targets);
  let finalClientOk: boolean;
  try {
    for (const target of targets) {
      current = target;
      figures.push(
        await runTarget(inst, target, options.seed, options.count, {
          known: options.known ?? 'send',
          timeoutMs,
          clientEvery,
          concurrency,
          findings,
          log,
        }),
      );
    }
    const finals = await Promise.all(
      targets.map((t) =>
        clientCheck(inst, t).then(
          () => true,
          (error: Error) => {
            findings.push({
              kind: 'client',
              target: t,
              seed: options.seed,
              index: -1,
              label: 'final client check',
              detail: error.message,
              preview: '',
            });
            return false;
          },
        ),
      ),
    );
    finalClientOk = finals.every(Boolean);
  } finally {
    await inst.close();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
  return {
    seed: options.seed,
    count: options.count,
    gc: typeof (globalThis as { gc?: unknown }).gc === 'function',
    targets: figures,
    findings,
    finalClientOk,
  };
}

function portOf(inst: Instances, target: TargetName): number {
  switch (target) {
    case 'mcp-record':
    case 'legacy-sse':
      return inst.record.port;
    case 'mcp-replay':
      return inst.replay.port;
    case 'rest':
    case 'serve-mcp':
      return inst.serve.port;
    default:
      return inst.ui.shell.port;
  }
}

/** the health probe: GET /healthcheck (proxies), /api/healthz (serve), the page with its token (UI) */
async function probe(inst: Instances, target: TargetName, timeoutMs: number): Promise<string | undefined> {
  const port = portOf(inst, target);
  const p =
    target === 'rest' || target === 'serve-mcp' ? '/api/healthz' : target.startsWith('ui') ? '/' : '/healthcheck';
  const o = await sendHttp(port, { method: 'GET', path: p, headers: {} }, timeoutMs);
  return 'status' in o && o.status === 200
    ? undefined
    : `health probe GET ${p}: ${'status' in o ? o.status : `${o.outcome} (${o.detail})`}`;
}

async function withClient(url: string, opts: ConnectClientOptions, text: string, expected: string): Promise<void> {
  const c = await connectClient(url, opts);
  try {
    const result = (await c.client.callTool({ name: 'echo', arguments: { text } })) as {
      content: Array<{ type: string; text?: string }>;
    };
    const got = result.content.map((x) => x.text ?? '').join('');
    if (got !== expected) throw new Error(`echo answered ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  } finally {
    await c.close();
  }
}

/** a real client still works: an SDK client's tools/call (MCP targets), REST read, UI bridge commands */
async function clientCheck(inst: Instances, target: TargetName): Promise<void> {
  const bounded = <T>(p: Promise<T>): Promise<T> =>
    Promise.race([
      p,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('client check: nothing within 15 s')), 15_000),
      ),
    ]);
  switch (target) {
    case 'mcp-record':
      return bounded(withClient(inst.record.url, {}, 'check', 'echo: check'));
    case 'mcp-replay':
      return bounded(withClient(inst.replay.url, {}, 'after', 'echo: after'));
    case 'legacy-sse':
      return bounded(
        withClient(`http://127.0.0.1:${inst.record.port}/sse`, { transport: 'sse' }, 'legacy', 'echo: legacy'),
      );
    case 'serve-mcp':
      return bounded(
        withClient(
          `${inst.serve.url}/mcp`,
          { headers: { authorization: `Bearer ${inst.health.token}` } },
          'serve',
          'echo: serve',
        ),
      );
    case 'rest': {
      const { status } = await restJson(`${inst.serve.url}/api/sessions/${inst.health.id}`, 'GET');
      if (status !== 200) throw new Error(`GET /api/sessions/<health> → ${status}`);
      return bounded(withClient(`${inst.serve.url}/s/${inst.health.token}/mcp`, {}, 'rest', 'echo: rest'));
    }
    default: {
      const bridge = new Bridge(`ws://127.0.0.1:${inst.ui.shell.port}/api`, inst.ui.shell.token);
      try {
        for (const [i, command] of ['app.info', 'proxies.list', 'settings.get'].entries()) {
          const answer = await bridge.send(JSON.stringify({ id: i + 1, command, input: {} }), false, 10_000);
          if (!answer?.frame || answer.frame.id !== i + 1 || answer.frame.ok !== true)
            throw new Error(`UI bridge ${command}: ${JSON.stringify(answer)}`);
        }
      } finally {
        bridge.close();
      }
    }
  }
}

interface RunContext {
  known: 'skip' | 'send';
  timeoutMs: number;
  clientEvery: number;
  concurrency: number;
  findings: Finding[];
  log: (line: string) => void;
}

/** a raw MCP session (initialize + initialized) for inputs that are meant to reach the pipeline */
async function mcpSession(
  port: number,
  p: string,
  auth: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, string> | undefined> {
  const init = await new Promise<{ status: number; sid?: string; text: string }>((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: p,
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...auth },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, sid: res.headers['mcp-session-id'] as string | undefined, text }),
        );
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('initialize: no answer')));
    req.on('error', reject);
    req.end(body);
  });
  if (init.status !== 200) return undefined;
  const headers: Record<string, string> = {
    'mcp-protocol-version': /"protocolVersion":"([^"]+)"/.exec(init.text)?.[1] ?? '2025-11-25',
  };
  if (init.sid) headers['mcp-session-id'] = init.sid;
  await sendHttp(
    port,
    {
      method: 'POST',
      path: p,
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...auth, ...headers },
      body: Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
    },
    timeoutMs,
  );
  return headers;
}

async function runTarget(
  inst: Instances,
  target: TargetName,
  seed: number,
  count: number,
  ctx: RunContext,
): Promise<TargetFigures> {
  const started = performance.now();
  const before = await settleMemory();
  const fig: TargetFigures = {
    target,
    inputs: 0,
    statuses: {},
    s2xx: 0,
    s4xx: 0,
    s5xx: 0,
    other: 0,
    crashes: 0,
    hangs: 0,
    knownSkipped: 0,
    knownFailures: 0,
    clientChecks: 0,
    clientFailures: 0,
    rssBeforeMiB: mib(before.rss),
    rssAfterMiB: 0,
    heapBeforeMiB: mib(before.heap),
    heapAfterMiB: 0,
    seconds: 0,
  };
  const port = portOf(inst, target);
  const serveAuth = { authorization: `Bearer ${inst.health.token}` };
  const values: Record<string, string> = {
    SANDBOX: inst.sandbox,
    API: API_TOKEN,
    HEALTH: inst.health.id,
    VICTIM: inst.victim.id,
    PORT: String(port),
    TOKEN: target === 'serve-mcp' ? inst.health.token : inst.ui.shell.token,
    LEGACY: inst.legacy[0]?.sessionId ?? 'none',
    SID: 'none',
  };
  let session: Record<string, string> | undefined;
  const refreshSession = async (): Promise<void> => {
    if (target === 'mcp-record') session = await mcpSession(inst.record.port, '/mcp', {}, ctx.timeoutMs);
    else if (target === 'mcp-replay') session = await mcpSession(inst.replay.port, '/mcp', {}, ctx.timeoutMs);
    else if (target === 'serve-mcp') session = await mcpSession(inst.serve.port, '/mcp', serveAuth, ctx.timeoutMs);
    values.SID = session?.['mcp-session-id'] ?? 'none';
  };
  await refreshSession();
  const bridges =
    target === 'ui-ws'
      ? Array.from({ length: ctx.concurrency }, () => new Bridge(`ws://127.0.0.1:${port}/api`, inst.ui.shell.token))
      : [];

  const count1 = (key: string, cls: 's2xx' | 's4xx' | 's5xx' | 'other'): void => {
    fig.statuses[key] = (fig.statuses[key] ?? 0) + 1;
    fig[cls]++;
  };
  const finding = (
    kind: FindingKind,
    index: number,
    label: string,
    detail: string,
    preview: string,
    known?: string,
  ): void => {
    ctx.findings.push({ kind, target, seed, index, label: label.slice(0, 200), detail, preview, known });
    if (known) fig.knownFailures++;
    else ctx.log(`fuzz: ${kind} on ${target} #${index} (${label.slice(0, 200)}): ${detail}`);
  };
  const onStatus = (status: number, index: number, label: string, preview: string, known: string | undefined): void => {
    const cls = status >= 500 ? 's5xx' : status >= 400 ? 's4xx' : status >= 200 && status < 300 ? 's2xx' : 'other';
    count1(String(status), cls);
    if (status >= 500) finding('5xx', index, label, `HTTP ${status}`, preview, known);
  };

  let consecutiveCrashes = 0;
  let next = 0;
  let sinceClient = 0;
  let sinceSession = 0;
  let aborted = false;

  const one = async (index: number, worker: number): Promise<void> => {
    const input = inputFor(seed, target, index);
    let known: string | undefined;
    if (input.type === 'ws') {
      fig.inputs++;
      await oneWs(input, index, bridges[worker]);
    } else if (input.type === 'raw') {
      const bytes = fillText(input.bytes, values);
      known = knownIssueOf(target, { path: '', headers: {}, raw: bytes })?.id;
      if (known && ctx.known === 'skip') return void fig.knownSkipped++;
      fig.inputs++;
      const o = await sendRaw(port, bytes, ctx.timeoutMs);
      record(o, index, input.label, previewOf(bytes), known);
    } else {
      const p = prepare(input, values, session);
      known = knownIssueOf(target, p)?.id;
      if (known && ctx.known === 'skip') return void fig.knownSkipped++;
      fig.inputs++;
      const o = await sendHttp(port, p, ctx.timeoutMs);
      record(o, index, input.label, previewOf(p), known);
    }
    const down = await probe(inst, target, ctx.timeoutMs);
    if (down) {
      fig.crashes++;
      consecutiveCrashes++;
      finding('crash', index, input.label, down, '', known);
      if (consecutiveCrashes >= 3) aborted = true;
    } else consecutiveCrashes = 0;
  };

  const record = (o: Outcome, index: number, label: string, preview: string, known: string | undefined): void => {
    if ('status' in o) return onStatus(o.status, index, label, preview, known);
    if (o.outcome === 'hang') {
      fig.hangs++;
      count1('hang', 'other');
      finding('hang', index, label, o.detail, preview, known);
      return;
    }
    count1(o.outcome, 'other');
  };

  const oneWs = async (input: WsInput, index: number, bridge: Bridge): Promise<void> => {
    const frame = typeof input.frame === 'string' ? fillText(input.frame, values) : input.frame;
    const preview = previewOf(frame);
    let answer: Awaited<ReturnType<Bridge['send']>>;
    try {
      answer = await bridge.send(frame, input.binary, ctx.timeoutMs);
    } catch (error) {
      count1('ws-connect-failed', 'other');
      finding('crash', index, input.label, `cannot connect to the bridge: ${(error as Error).message}`, preview);
      return;
    }
    if (!answer) {
      fig.hangs++;
      count1('hang', 'other');
      return finding('hang', index, input.label, `no answer frame and no close within ${ctx.timeoutMs} ms`, preview);
    }
    if (answer.close !== undefined) {
      const expected = 'close' in input.expect && input.expect.close === answer.close;
      count1(`ws-close-${answer.close}`, expected ? 's4xx' : answer.close === 1011 ? 's5xx' : 'other');
      if (answer.close === 1011)
        finding('5xx', index, input.label, 'the bridge closed with 1011 (internal error)', preview);
      return;
    }
    const f = answer.frame!;
    const expectedId = 'id' in input.expect ? input.expect.id : undefined;
    if (expectedId !== undefined && f.id !== expectedId && !(expectedId === -1 && typeof f.id === 'number')) {
      count1('ws-wrong-id', 'other');
      return finding('5xx', index, input.label, `answer id ${JSON.stringify(f.id)}, expected ${expectedId}`, preview);
    }
    if (f.ok === true) return count1('ws-ok', 's2xx');
    const message = f.error?.message ?? '';
    if (INTERNAL.test(message)) {
      count1('ws-internal-error', 's5xx');
      return finding('5xx', index, input.label, `error frame looks internal: ${message.slice(0, 300)}`, preview);
    }
    count1('ws-error', 's4xx');
  };

  const worker = async (w: number): Promise<void> => {
    while (!aborted) {
      const index = next++;
      if (index >= count) return;
      await one(index, w).catch((error: Error) =>
        finding('crash', index, 'runner error', `the fuzzer itself failed: ${error.stack ?? error.message}`, ''),
      );
      if (++sinceSession >= 100) {
        sinceSession = 0;
        await refreshSession().catch(() => {});
      }
      if (++sinceClient >= ctx.clientEvery) {
        sinceClient = 0;
        fig.clientChecks++;
        if (target === 'legacy-sse') {
          // keep a live legacy session for the next inputs
          if (!inst.legacy[0]?.alive()) {
            const fresh = await openLegacy(inst.record.port).catch(() => undefined);
            if (fresh) {
              inst.legacy.unshift(fresh);
              values.LEGACY = fresh.sessionId;
            }
          }
        }
        await clientCheck(inst, target).catch((error: Error) => {
          fig.clientFailures++;
          finding('client', index, 'client check', error.message, '');
        });
      }
    }
  };
  await Promise.all(Array.from({ length: ctx.concurrency }, (_, w) => worker(w)));
  for (const b of bridges) b.close();
  // the last word: a real client still works
  fig.clientChecks++;
  await clientCheck(inst, target).catch((error: Error) => {
    fig.clientFailures++;
    finding('client', count, 'client check (end)', error.message, '');
  });
  // sessions a fuzzed POST /api/sessions happened to create are removed (they would keep supervisors running)
  if (target === 'rest') {
    const { json } = await restJson(`${inst.serve.url}/api/sessions`, 'GET').catch(() => ({
      json: { sessions: [] } as Record<string, unknown>,
    }));
    for (const s of (json.sessions as Array<{ session_id: string }>) ?? []) {
      if (s.session_id !== inst.health.id && s.session_id !== inst.victim.id)
        await restJson(`${inst.serve.url}/api/sessions/${encodeURIComponent(s.session_id)}`, 'DELETE').catch(() => {});
    }
    // the victim may have been deleted or rewritten: later targets do not use it
  }
  const after = await settleMemory();
  fig.rssAfterMiB = mib(after.rss);
  fig.heapAfterMiB = mib(after.heap);
  fig.seconds = Math.round((performance.now() - started) / 100) / 10;
  ctx.log(
    `fuzz: ${target}: ${fig.inputs} inputs in ${fig.seconds} s, 5xx ${fig.s5xx}, crashes ${fig.crashes}, hangs ${fig.hangs}`,
  );
  return fig;
}

// ---------------------------------------------------------------------------------------------------------------
// report

export function figuresTable(report: FuzzReport): string {
  const rows = [
    '| target | inputs | 2xx | 4xx | 5xx | other | crashes | hangs | of which known issues (sent / skipped) | client checks (failed) | RSS before → after (MiB) | heap before → after (MiB) | s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of report.targets) {
    rows.push(
      `| ${f.target} | ${f.inputs} | ${f.s2xx} | ${f.s4xx} | ${f.s5xx} | ${f.other} | ${f.crashes} | ${f.hangs} | ${f.knownFailures} / ${f.knownSkipped} | ${f.clientChecks} (${f.clientFailures}) | ${f.rssBeforeMiB} → ${f.rssAfterMiB} | ${f.heapBeforeMiB} → ${f.heapAfterMiB} | ${f.seconds} |`,
    );
  }
  const total = report.targets.reduce(
    (a, f) => ({
      inputs: a.inputs + f.inputs,
      s5xx: a.s5xx + f.s5xx,
      crashes: a.crashes + f.crashes,
      hangs: a.hangs + f.hangs,
    }),
    { inputs: 0, s5xx: 0, crashes: 0, hangs: 0 },
  );
  rows.push(
    `| **total** | ${total.inputs} | | | ${total.s5xx} | | ${total.crashes} | ${total.hangs} | | final client ${report.finalClientOk ? 'ok' : 'FAILED'} | | | |`,
  );
  return rows.join('\n');
}

/** status histogram per target, one line each */
export function histogram(report: FuzzReport): string {
  return report.targets
    .map(
      (f) =>
        `- ${f.target}: ${Object.entries(f.statuses)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => `${k}×${v}`)
          .join(', ')}`,
    )
    .join('\n');
}

export { REPO };
