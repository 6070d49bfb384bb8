import type { Page } from '@playwright/test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxyInfo, TrafficEvent } from '../src/shared/api.js';
import { connectClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { apiOf, descendantsOf, startUiProcess, type UiProcess } from '../test/helpers/ui-process.js';
import { expect, ROOT, test } from './shell.js';

// A web page on another loopback port (a dev server, an npm package's server) in the same browser as the UI: it used to
// call tools through the UI's recording proxy and make its stdio proxy spawn the server — a stdio server is not
// reachable from a web page, and through us it became so. Now a request carrying a browser Origin is refused (403)
// unless that origin was given leave: a proxy's "Browser origins", or `mcp-rewind ui --allowed-origin`. Requests with
// no Origin (agents, SDK clients) are unaffected. `mcp-rewind ui` as a real process, the page in real Chromium.

test.skip(({ shell }) => shell !== 'browser', 'browser shell only: a page of another local server, in Chromium');

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const STDIO_COMMAND = `${process.execPath} ${EVERYTHING} stdio`;

/** the other local server: one empty page, on a port of its own */
async function otherLocalServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a local dev server</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Attempt {
  /** the page's fetch of initialize, then of tools/call: their statuses and answers, or why the browser blocked it */
  initialize?: number;
  call?: string;
  blocked?: string;
}

/** From the page: what a browser-based MCP client would do — initialize, then call a tool. */
function attempt(page: Page, url: string, args: Record<string, string>): Promise<Attempt> {
  return page.evaluate(
    async ({ url, args }) => {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      };
      const send = (body: unknown, session?: string | null) =>
        fetch(url, {
          method: 'POST',
          headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
          body: JSON.stringify(body),
        });
      try {
        const init = await send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a page', version: '1' } },
        });
        const session = init.headers.get('mcp-session-id');
        await init.text();
        if (!init.ok) return { initialize: init.status };
        await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
        const call = await send(
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: args } },
          session,
        );
        return { initialize: init.status, call: await call.text() };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    { url, args },
  );
}

/** The status a no-cors request (no preflight; the page cannot read the answer) got, as the network saw it. */
async function simpleRequestStatus(page: Page, url: string, method: 'POST' | 'GET'): Promise<number> {
  const answered = page.waitForResponse((r) => r.url() === url && r.request().method() === method);
  await page.evaluate(
    ({ url, method }) =>
      fetch(url, {
        method,
        mode: 'no-cors',
        ...(method === 'POST'
          ? { headers: { 'content-type': 'text/plain' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }
          : {}),
      }).catch(() => {}),
    { url, method },
  );
  return (await answered).status();
}

/** An Origin header's fate at a proxy, from Node (what the guard answers whoever sends it). */
function statusWithOrigin(url: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });
}

const entries = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.json'));

let ui: UiProcess | undefined;
let other: Server | undefined;
let upstream: SdkServerHandle | undefined;
const dirs: string[] = [];
test.afterEach(async () => {
  await ui?.stop();
  ui = undefined;
  other?.closeAllConnections();
  await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
  other = undefined;
  await upstream?.close();
  upstream = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

test("another local server's page cannot drive the UI's recording or stdio proxy (403, no child, nothing recorded); a proxy's Browser origins lets it; SDK clients and the app's own session are unaffected", async ({
  shellBrowser,
}) => {
  const page = { origin: '' };
  ({ server: other, origin: page.origin } = await otherLocalServer());
  upstream = await startSdkServer();
  ui = await startUiProcess(tempDir('rewind-e2e-data-'), { args: ['--no-open'] });
  const api = await apiOf(ui.origin, ui.token());
  try {
    const cassette = tempDir('rewind-e2e-cassette-');
    const recording = await api.call<ProxyInfo>('proxies.create', {
      name: 'recording',
      mode: 'record',
      upstreamUrl: upstream.url,
      cacheDir: cassette,
    });
    const stdio = await api.call<ProxyInfo>('proxies.create', {
      name: 'stdio',
      mode: 'proxy-only',
      upstreamCommand: STDIO_COMMAND,
    });
    expect([recording.state, stdio.state]).toEqual(['running', 'running']);
    await new Promise((r) => setTimeout(r, 500)); // the stdio probe's child has gone
    const children = descendantsOf(ui.pid).length;

    const context = await shellBrowser!.newContext();
    const evil = await context.newPage();
    await evil.goto(`${page.origin}/`);
    for (const [proxy, args] of [
      [recording, { text: 'from a page' }],
      [stdio, { message: 'from a page' }],
    ] as const) {
      expect(await attempt(evil, proxy.url!, args), proxy.name).toEqual({
        blocked: expect.stringMatching(/Failed to fetch/),
      });
      expect(await simpleRequestStatus(evil, proxy.url!, 'POST'), `${proxy.name}: a no-cors POST`).toBe(403);
      expect(
        await simpleRequestStatus(evil, proxy.url!.replace(/\/mcp$/, '/sse'), 'GET'),
        `${proxy.name}: a no-cors GET /sse`,
      ).toBe(403);
    }
    expect(descendantsOf(ui.pid).length, 'no stdio server was spawned').toBe(children);
    expect(entries(cassette), 'nothing recorded').toEqual([]);
    expect(upstream.calls).toEqual([]);
    expect(await api.call<TrafficEvent[]>('traffic.snapshot', {})).toEqual([]);

    // an agent (the SDK client: no Origin) is unaffected
    const agent = await connectClient(recording.url!);
    await agent.client.callTool({ name: 'echo', arguments: { text: 'from an agent' } });
    await agent.close();
    expect(upstream.calls.map((c) => c.tool)).toEqual(['echo']);

    // the UI's own page, signed in: the app's session (Compose) works
    const app = await context.newPage();
    await app.goto(ui.link);
    await expect(app.getByRole('status')).toHaveText('connected');
    const composed = await api.call<{ response: { result?: unknown } }>('exchange.send', {
      proxyId: recording.id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'composed' } },
      kind: 'compose',
    });
    expect(composed.response.result).toMatchObject({ content: [{ text: 'echo: composed' }] });
    // (the UI's page itself connects to nothing but its shell, by its CSP; its origin is admitted by its proxies all the same)
    expect(await statusWithOrigin(recording.url!, ui.origin)).not.toBe(403); // (400: a ping without a session, from the server)
    expect(await statusWithOrigin(recording.url!, page.origin)).toBe(403);

    // the per-proxy setting, in the New proxy form: this page's origin may call that proxy, and only that one
    await app.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = app.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    const allowedCassette = tempDir('rewind-e2e-cassette-');
    await form.getByLabel('Cassette folder').fill(allowedCassette);
    await form.getByLabel('Name').fill('for the page');
    await form.getByLabel('Browser origins').fill('not an origin');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByRole('alert')).toContainText('http(s)://host[:port], no path');
    await form.getByLabel('Browser origins').fill(page.origin);
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const row = app.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'for the page' });
    await expect(row.getByText('running')).toBeVisible();
    const allowedUrl = (await row.locator('code').textContent())!;
    expect(await attempt(evil, allowedUrl, { text: 'allowed page' })).toMatchObject({
      initialize: 200,
      call: expect.stringContaining('allowed page'),
    });
    await expect.poll(() => entries(allowedCassette).length).toBeGreaterThan(0);
    expect(await attempt(evil, recording.url!, { text: 'still not' })).toEqual({
      blocked: expect.stringMatching(/Failed to fetch/),
    });
    await context.close();
  } finally {
    api.close();
  }
});

test('mcp-rewind ui --allowed-origin: that page may call every proxy of the UI, stdio included (its server is spawned); other origins still get 403', async ({
  shellBrowser,
}) => {
  const page = { origin: '' };
  ({ server: other, origin: page.origin } = await otherLocalServer());
  ui = await startUiProcess(tempDir('rewind-e2e-data-'), { args: ['--no-open', '--allowed-origin', page.origin] });
  const api = await apiOf(ui.origin, ui.token());
  try {
    const stdio = await api.call<ProxyInfo>('proxies.create', {
      name: 'stdio',
      mode: 'proxy-only',
      upstreamCommand: STDIO_COMMAND,
    });
    expect(stdio.state).toBe('running');
    await new Promise((r) => setTimeout(r, 500));
    const children = descendantsOf(ui.pid).length;
    const context = await shellBrowser!.newContext();
    const evil = await context.newPage();
    await evil.goto(`${page.origin}/`);
    const result = await attempt(evil, stdio.url!, { message: 'from an allowed page' });
    expect(result).toMatchObject({ initialize: 200, call: expect.stringContaining('from an allowed page') });
    expect(descendantsOf(ui.pid).length).toBeGreaterThan(children); // the stdio server of the page's session
    expect(await statusWithOrigin(stdio.url!, 'http://127.0.0.1:4598')).toBe(403);
    await context.close();
  } finally {
    api.close();
  }
});
