import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { EventName, EventPayloads, ProxyInfo, ServerFrame, TrafficEvent } from '../../src/shared/api.js';
import {
  API_PROTOCOL,
  MAX_FRAME_BYTES,
  startWebShell,
  TOKEN_PROTOCOL_PREFIX,
  type ApiHandlerTable,
  type WebShell,
} from '../../src/main/web/web-shell.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

/**
 * The browser shell's transport: access token, Origin check, the frame protocol and event broadcast.
 * These tests run the shell over a tiny in-memory handler table implementing the same interface as
 * createApiHandlers (src/main/api/handlers.ts): the transport is what is under test here, so its peer is
 * deliberately minimal and controllable (e.g. emitting events on demand). The round trips through the real
 * handler table and AppController are in web-shell-real.test.ts.
 */
function fakeHandlers(): ApiHandlerTable & {
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  calls: Array<{ command: string; input: unknown }>;
} {
  const listeners = new Map<string, Set<(payload: never) => void>>();
  const calls: Array<{ command: string; input: unknown }> = [];
  return {
    calls,
    async call(command, input) {
      calls.push({ command, input });
      if (command === 'app.info') return { version: '0.0.0-test', shell: 'browser', platform: process.platform };
      if (command === 'echo') return input;
      if (command === 'slow') return new Promise((resolve) => setTimeout(() => resolve('slow done'), 50));
      if (command === 'cyclic') {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      }
      throw new Error(`unknown command "${command}"`);
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (payload: never) => void);
      return () => void set.delete(listener as (payload: never) => void);
    },
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) (l as (p: unknown) => void)(payload);
    },
  };
}

async function rendererFixture(): Promise<string> {
  const dir = await tempDir('web-shell-renderer-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>fixture</title><script type="module" src="./assets/app.js"></script>',
  );
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("app")');
  return dir;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(shell: WebShell, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: shell.port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens a WebSocket to /api, presenting the token `via` a subprotocol (as the page does, the default), an
 * Authorization header (non-browser clients), or — refused since the token left the URL and the cookie — the query
 * or a cookie. Rejects with the HTTP status of a refused upgrade.
 */
function connect(
  shell: WebShell,
  options: {
    token?: string | null;
    via?: 'protocol' | 'bearer' | 'query' | 'cookie';
    origin?: string | null;
    host?: string;
  } = {},
): Promise<WebSocket> {
  const token = options.token === undefined ? shell.token : options.token;
  const via = options.via ?? 'protocol';
  const url = `ws://127.0.0.1:${shell.port}/api${token !== null && via === 'query' ? `?token=${encodeURIComponent(token)}` : ''}`;
  const headers: Record<string, string> = {};
  if (token !== null && via === 'cookie') headers.cookie = `mcp_rewind_token_${shell.port}=${token}`;
  if (token !== null && via === 'bearer') headers.authorization = `Bearer ${token}`;
  if (options.host) headers.host = options.host;
  const origin = options.origin === undefined ? shell.origin : options.origin;
  const protocols = token !== null && via === 'protocol' ? [API_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${token}`] : [];
  const ws = new WebSocket(url, protocols, { headers, ...(origin === null ? {} : { origin }) });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
      ws.on('error', () => {});
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

/** A frame-level client: raw sends, replies by id, every event frame. */
function frames(ws: WebSocket) {
  const received: ServerFrame[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    received.push(JSON.parse(data.toString()) as ServerFrame);
    for (const w of waiters.splice(0)) w();
  });
  const until = async <T>(pick: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const found = pick();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(received)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  let nextId = 1;
  return {
    received,
    send: (raw: string | Buffer) => ws.send(raw),
    /** the reply to frame `id` */
    reply: (id: number) => until(() => received.find((f) => 'id' in f && f.id === id), `reply ${id}`),
    async call(command: string, input: unknown = {}) {
      const id = nextId++;
      ws.send(JSON.stringify({ id, command, input }));
      return this.reply(id);
    },
    events: (event: EventName, count: number) =>
      until(() => {
        const found = received.filter((f) => 'event' in f && f.event === event);
        return found.length >= count ? found : undefined;
      }, `${count} ${event} event(s)`),
  };
}

const closed = (ws: WebSocket): Promise<number> =>
  new Promise((resolve) => (ws.readyState === ws.CLOSED ? resolve(-1) : ws.once('close', (code) => resolve(code))));

let shell: WebShell | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await shell?.close();
  shell = undefined;
});
afterAll(removeTempDirs);

async function start(handlers: ApiHandlerTable = fakeHandlers()): Promise<WebShell> {
  shell = await startWebShell({ rendererDir: await rendererFixture(), handlers });
  return shell;
}
async function open(s: WebShell, options?: Parameters<typeof connect>[1]): Promise<WebSocket> {
  const ws = await connect(s, options);
  sockets.push(ws);
  return ws;
}

describe('web shell: pages', () => {
  it('gives a loopback sign-in link with a one-time code, never the token (a 32-character base64url token of its own)', async () => {
    const s = await start();
    const link = new URL(s.signInUrl());
    expect(link.origin).toBe(`http://127.0.0.1:${s.port}`);
    expect([...link.searchParams.keys()]).toEqual(['code']);
    expect(link.href).not.toContain(s.token);
    expect(s.signInUrl()).not.toBe(link.href); // a new code each time
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const other = await startWebShell({ rendererDir: await rendererFixture(), handlers: fakeHandlers() });
    expect(other.token).not.toBe(s.token);
    await other.close();
  });

  it('serves the page and its assets without any credential (they hold no secret), sets no cookie, and sends a strict CSP', async () => {
    const s = await start();
    for (const path of ['/', `/?code=${s.issueCode()}`, '/?code=wrong']) {
      const page = await get(s, path);
      expect(page.status, path).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(
        page.headers['set-cookie'],
        `${path}: a cookie would reach every other server on this host`,
      ).toBeUndefined();
      expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(page.body).toContain('<title>fixture</title>');
      expect(page.body).not.toContain(s.token);
    }
    const asset = await get(s, '/assets/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/^text\/javascript/);
    expect(asset.body).toBe('console.log("app")');
  });

  it('/api/auth tells a page whether its token is good: 204 with it, 401 without or wrong, 403 from another origin', async () => {
    const s = await start();
    expect((await get(s, '/api/auth', { authorization: `Bearer ${s.token}` })).status).toBe(204);
    expect((await get(s, '/api/auth', { authorization: `Bearer ${s.token}x` })).status).toBe(401);
    expect((await get(s, '/api/auth')).status).toBe(401);
    expect((await get(s, `/api/auth?token=${s.token}`)).status).toBe(401);
    expect(
      (await get(s, '/api/auth', { authorization: `Bearer ${s.token}`, origin: 'http://127.0.0.1:1' })).status,
    ).toBe(403);
  });

  it('serves nothing outside the renderer folder, and 404s unknown files', async () => {
    const s = await start();
    expect((await get(s, '/../../../../etc/passwd')).status).toBe(404);
    expect((await get(s, '/..%2f..%2f..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get(s, '/%2e%2e/%2e%2e/package.json')).status).toBe(404);
    expect((await get(s, '/nope.js')).status).toBe(404);
    expect((await get(s, '/%E0%A4%A')).status).toBe(400);
    expect((await get(s, '//etc/passwd')).status).toBe(404);
    expect((await get(s, '//')).status).toBe(200); // the index, not a 500
    const post = await new Promise<number>((resolve, reject) =>
      http
        .request({ host: '127.0.0.1', port: s.port, path: '/', method: 'POST', headers: {} }, (res) =>
          resolve(res.statusCode ?? 0),
        )
        .on('error', reject)
        .end(),
    );
    expect(post).toBe(405);
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const s = await start();
    expect((await get(s, '/', { host: 'evil.example:80' })).status).toBe(403);
  });
});

describe('web shell: WebSocket upgrade', () => {
  it('refuses the upgrade without the token, with a wrong one, and with the right one in the query or a cookie (401)', async () => {
    const s = await start();
    await expect(connect(s, { token: null })).rejects.toMatchObject({ status: 401 });
    await expect(connect(s, { token: 'wrong' })).rejects.toMatchObject({ status: 401 });
    await expect(connect(s, { token: 'wrong', via: 'bearer' })).rejects.toMatchObject({ status: 401 });
    // ambient or URL-borne credentials are what leaked: another local page could send them
    await expect(connect(s, { via: 'query' })).rejects.toMatchObject({ status: 401 });
    await expect(connect(s, { via: 'cookie' })).rejects.toMatchObject({ status: 401 });
    await expect(connect(s, { via: 'cookie', origin: null })).rejects.toMatchObject({ status: 401 });
    expect(s.clients()).toBe(0);
  });

  it('accepts the token as a subprotocol (answering mcp-rewind.v1, never echoing the token) or as Authorization: Bearer', async () => {
    const s = await start();
    const page = await open(s);
    expect(page.protocol).toBe(API_PROTOCOL);
    await open(s, { via: 'bearer', origin: null });
    expect(s.clients()).toBe(2);
  });

  it("refuses another Origin than the shell's own, even with the token (403)", async () => {
    const s = await start();
    await expect(connect(s, { origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(connect(s, { origin: `http://127.0.0.1:${s.port + 1}` })).rejects.toMatchObject({ status: 403 });
    await expect(connect(s, { origin: `https://127.0.0.1:${s.port}` })).rejects.toMatchObject({ status: 403 });
    await expect(connect(s, { origin: 'null' })).rejects.toMatchObject({ status: 403 });
    await expect(connect(s, { host: 'evil.example', origin: 'http://evil.example' })).rejects.toMatchObject({
      status: 403,
    });
    // the page opened as localhost: its origin matches its Host
    await open(s, { host: `localhost:${s.port}`, origin: `http://localhost:${s.port}` });
    // no Origin at all: not a browser (browsers always send one on a WebSocket handshake)
    await open(s, { origin: null });
  });

  it('refuses upgrades on other paths', async () => {
    const s = await start();
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/other`, [API_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${s.token}`], {
      origin: s.origin,
    });
    ws.on('error', () => {});
    const status = await new Promise<number>((resolve) =>
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    ws.terminate();
    expect(status).toBe(404);
  });
});

describe('web shell: frames', () => {
  it('answers a call with an ok frame carrying the same id, and a failing call with an error frame', async () => {
    const s = await start();
    const c = frames(await open(s));
    expect(await c.call('app.info')).toEqual({
      id: 1,
      ok: true,
      output: { version: '0.0.0-test', shell: 'browser', platform: process.platform },
    });
    expect(await c.call('echo', { a: [1, 2] })).toEqual({ id: 2, ok: true, output: { a: [1, 2] } });
    expect(await c.call('nope')).toEqual({ id: 3, ok: false, error: { message: 'unknown command "nope"' } });
    expect(await c.call('cyclic')).toMatchObject({
      id: 4,
      ok: false,
      error: { message: expect.stringMatching(/could not be serialized/) },
    });
  });

  it('runs calls concurrently: replies carry their ids whatever the order', async () => {
    const s = await start();
    const c = frames(await open(s));
    c.send(JSON.stringify({ id: 10, command: 'slow', input: {} }));
    c.send(JSON.stringify({ id: 11, command: 'echo', input: 'fast' }));
    await c.reply(10);
    const ids = c.received.map((f) => ('id' in f ? f.id : undefined));
    expect(ids).toEqual([11, 10]);
  });

  it('answers malformed frames with error frames and keeps serving', async () => {
    const handlers = fakeHandlers();
    const s = await start(handlers);
    const ws = await open(s);
    const c = frames(ws);
    c.send('not json {');
    c.send('[1,2]');
    c.send('null');
    c.send(JSON.stringify({ command: 'app.info', input: {} }));
    c.send(JSON.stringify({ id: 'x', command: 'app.info' }));
    c.send(JSON.stringify({ id: 1.5, command: 'app.info' }));
    c.send(JSON.stringify({ id: 7, command: 42 }));
    c.send(JSON.stringify({ id: 8 }));
    c.send(Buffer.from([0xff, 0x00, 0x01]));
    const errors = await c.reply(8).then(() => c.received);
    expect(errors).toHaveLength(9);
    expect(errors.every((f) => 'ok' in f && f.ok === false)).toBe(true);
    const messages = errors.map((f) => ('error' in f ? f.error.message : ''));
    expect(messages[0]).toBe('malformed frame: not JSON');
    expect(messages[1]).toMatch(/expected an object/);
    expect(messages[3]).toMatch(/"id" must be an integer/);
    expect(errors[6]).toMatchObject({ id: 7, error: { message: expect.stringMatching(/"command"/) } });
    expect(messages[8]).toMatch(/text frame/);
    expect(handlers.calls).toHaveLength(0);
    // the same connection still works
    expect(await c.call('echo', 'still here')).toMatchObject({ ok: true, output: 'still here' });
    // a missing input is passed as {}
    c.send(JSON.stringify({ id: 99, command: 'echo' }));
    expect(await c.reply(99)).toMatchObject({ ok: true, output: {} });
  });

  it('closes a connection that sends a frame over 1 MiB (1009) and keeps serving the others', async () => {
    const s = await start();
    const big = await open(s);
    const other = frames(await open(s));
    big.send(JSON.stringify({ id: 1, command: 'echo', input: 'x'.repeat(MAX_FRAME_BYTES) }));
    expect(await closed(big)).toBe(1009);
    expect(await other.call('echo', 'ok')).toMatchObject({ ok: true, output: 'ok' });
    // just under the cap passes
    const payload = 'y'.repeat(MAX_FRAME_BYTES - 100);
    expect(await other.call('echo', payload)).toMatchObject({ ok: true, output: payload });
  });
});

describe('web shell: events', () => {
  it('broadcasts traffic and proxies events to every connected client', async () => {
    const handlers = fakeHandlers();
    const s = await start(handlers);
    const a = frames(await open(s));
    const b = frames(await open(s, { via: 'bearer', origin: null }));
    const proxies: ProxyInfo[] = [
      {
        id: 'p1',
        name: 'demo',
        config: { mode: 'record', port: 0 },
        state: 'running',
        url: 'http://127.0.0.1:1/mcp',
        exchanges: 0,
      },
    ];
    const traffic = {
      seq: 1,
      proxyId: 'p1',
      method: 'tools/list',
      key: 'tools_list',
      source: 'upstream',
      cassette: 'recorded',
      request: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      stream: [],
      startedAt: 1,
      durationMs: 2,
    } as TrafficEvent;
    handlers.emit('proxies', proxies);
    handlers.emit('traffic', traffic);
    for (const c of [a, b]) {
      expect(await c.events('proxies', 1)).toEqual([{ event: 'proxies', payload: proxies }]);
      expect(await c.events('traffic', 1)).toEqual([{ event: 'traffic', payload: traffic }]);
    }
  });

  it('stops listening to the handlers once closed', async () => {
    const handlers = fakeHandlers();
    const s = await start(handlers);
    const ws = await open(s);
    const code = closed(ws);
    await s.close();
    expect(await code).toBe(1006);
    handlers.emit('proxies', []); // no throw, nobody listens
    shell = undefined;
    await expect(get(s, '/')).rejects.toThrow();
  });
});
