import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { openFile } from './inspector-helpers.js';
import { expect, test } from './shell.js';

// A HAR from another tool, opened as a user would (Open… in `mcp-rewind ui`, real Chromium, the real engine): a
// browser-based MCP client's session as Chrome DevTools' "Save all as HAR" writes it (WebInspector's fields, a CORS
// preflight, SSE answers, the session id in the initialize's response headers, a GET stream and a DELETE), and the
// same kind of traffic as HTTP Toolkit exports it (JSON answers with a charset, a base64 body, an aborted request).

const MCP = 'http://127.0.0.1:3001/mcp';
const SESSION = '5f0c9a1e-7d2b-4c11-9e3a-0b8f6d4e2a10';
const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const rpc = (id: number, method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const sse = (...messages: unknown[]): string =>
  messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('');
const header = (name: string, value: string): { name: string; value: string } => ({ name, value });

interface Call {
  method: string;
  url?: string;
  at: number;
  ms: number;
  requestHeaders?: Array<{ name: string; value: string }>;
  body?: string;
  status: number;
  responseHeaders?: Array<{ name: string; value: string }>;
  mimeType: string;
  text?: string;
  encoding?: string;
  error?: string;
}

/** an entry with the fields Chrome DevTools writes (WebInspector, Chromium 13x) */
function chromeEntry(c: Call): unknown {
  return {
    _initiator: { type: 'script', stack: { callFrames: [] } },
    _priority: 'High',
    _resourceType: c.method === 'OPTIONS' ? 'preflight' : 'fetch',
    cache: {},
    connection: '48213',
    pageref: 'page_1',
    request: {
      method: c.method,
      url: c.url ?? MCP,
      httpVersion: 'HTTP/1.1',
      headers: [
        header('Host', '127.0.0.1:3001'),
        header('Origin', 'http://localhost:6274'),
        ...(c.requestHeaders ?? []),
      ],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: c.body?.length ?? 0,
      ...(c.body !== undefined ? { postData: { mimeType: 'application/json', text: c.body } } : {}),
    },
    response: {
      status: c.status,
      statusText: c.status === 200 ? 'OK' : c.status === 202 ? 'Accepted' : '',
      httpVersion: 'HTTP/1.1',
      headers: c.responseHeaders ?? [],
      cookies: [],
      content: { size: c.text?.length ?? 0, mimeType: c.mimeType, ...(c.text !== undefined ? { text: c.text } : {}) },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _transferSize: 412,
      _error: c.error ?? null,
      _fetchedViaServiceWorker: false,
    },
    serverIPAddress: '127.0.0.1',
    startedDateTime: new Date(c.at).toISOString(),
    time: c.ms,
    timings: {
      blocked: 0.41,
      dns: -1,
      ssl: -1,
      connect: -1,
      send: 0.05,
      wait: c.ms - 1,
      receive: 0.5,
      _blocked_queueing: 0.2,
    },
  };
}

const initialize = rpc(0, 'initialize', {
  protocolVersion: '2025-06-18',
  capabilities: { sampling: {}, roots: { listChanged: true } },
  clientInfo: { name: 'mcp-inspector', version: '0.17.2' },
});
const sessionHeaders = [header('mcp-session-id', SESSION), header('mcp-protocol-version', '2025-06-18')];
const sseHeaders = [header('content-type', 'text/event-stream'), header('cache-control', 'no-cache')];

/** A session of a browser-based client (the MCP Inspector's tab) as Chrome DevTools saves it. */
function writeChromeHar(path: string): void {
  const calls: Call[] = [
    { method: 'OPTIONS', at: T0, ms: 2, status: 204, mimeType: 'x-unknown' },
    {
      method: 'POST',
      at: T0 + 10,
      ms: 31.7,
      requestHeaders: [
        header('Content-Type', 'application/json'),
        header('Accept', 'application/json, text/event-stream'),
      ],
      body: initialize,
      status: 200,
      responseHeaders: [...sseHeaders, header('mcp-session-id', SESSION)],
      mimeType: 'text/event-stream',
      text: sse({
        jsonrpc: '2.0',
        id: 0,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'weather', version: '2' },
        },
      }),
    },
    {
      method: 'POST',
      at: T0 + 50,
      ms: 3.2,
      requestHeaders: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      status: 202,
      mimeType: 'x-unknown',
      text: '',
    },
    {
      method: 'GET',
      at: T0 + 60,
      ms: 5000,
      requestHeaders: sessionHeaders,
      status: 200,
      mimeType: 'text/event-stream',
    },
    {
      method: 'POST',
      at: T0 + 80,
      ms: 12.4,
      requestHeaders: sessionHeaders,
      body: rpc(1, 'tools/list', {}),
      status: 200,
      responseHeaders: sseHeaders,
      mimeType: 'text/event-stream',
      text: sse({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'forecast', inputSchema: { type: 'object' } }] } }),
    },
    {
      method: 'POST',
      at: T0 + 200,
      ms: 842.9,
      requestHeaders: sessionHeaders,
      body: rpc(2, 'tools/call', { name: 'forecast', arguments: { city: 'Lisbon' }, _meta: { progressToken: 7 } }),
      status: 200,
      responseHeaders: sseHeaders,
      mimeType: 'text/event-stream',
      text:
        ': keep-alive\n\n' +
        sse(
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2 } },
          { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Lisbon: sunny, 24 °C' }] } },
        ),
    },
    {
      method: 'POST',
      at: T0 + 1200,
      ms: 9.1,
      requestHeaders: sessionHeaders,
      body: rpc(3, 'tools/call', { name: 'forecast', arguments: { city: 42 } }),
      status: 200,
      responseHeaders: sseHeaders,
      mimeType: 'text/event-stream',
      text: sse({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'city: expected a string' } }),
    },
    {
      method: 'DELETE',
      at: T0 + 1500,
      ms: 4,
      requestHeaders: sessionHeaders,
      status: 200,
      mimeType: 'x-unknown',
      text: '',
    },
  ];
  const log = {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    pages: [
      {
        startedDateTime: new Date(T0 - 1000).toISOString(),
        id: 'page_1',
        title: 'http://localhost:6274/',
        pageTimings: { onContentLoad: 310.2, onLoad: 402.8 },
      },
    ],
    entries: calls.map(chromeEntry),
  };
  writeFileSync(path, JSON.stringify({ log }, null, 2));
}

/** Traffic of an agent through HTTP Toolkit's proxy, exported with "Export as HAR" (its own creator and fields). */
function writeHttpToolkitHar(path: string): void {
  const entry = (c: Call, n: number): unknown => ({
    pageref: 'page_0',
    startedDateTime: new Date(c.at).toISOString(),
    time: c.ms,
    request: {
      method: c.method,
      url: MCP,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        header('host', '127.0.0.1:3001'),
        header('content-type', 'application/json'),
        ...(c.requestHeaders ?? []),
      ],
      queryString: [],
      postData: { mimeType: 'application/json', text: c.body },
      headersSize: -1,
      bodySize: c.body?.length ?? 0,
    },
    response: {
      status: c.status,
      statusText: c.status ? 'OK' : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: c.responseHeaders ?? [],
      content: {
        mimeType: c.mimeType,
        size: c.text?.length ?? 0,
        ...(c.text !== undefined ? { text: c.text } : {}),
        ...(c.encoding ? { encoding: c.encoding } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...(c.error ? { _error: c.error } : {}),
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait: c.ms, receive: 0, ssl: -1 },
    comment: `request ${n + 1}`,
  });
  const json = [header('content-type', 'application/json; charset=utf-8')];
  const calls: Call[] = [
    {
      method: 'POST',
      at: T0,
      ms: 18,
      body: rpc(10, 'tools/call', { name: 'read_note', arguments: { id: 'n-1' } }),
      status: 200,
      responseHeaders: json,
      mimeType: 'application/json; charset=utf-8',
      // HTTP Toolkit keeps a body it could not show as UTF-8 text in base64; this one has a "ü" and an emoji
      text: Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 10,
          result: { content: [{ type: 'text', text: 'Grüße aus 🗒 Notizen' }] },
        }),
      ).toString('base64'),
      encoding: 'base64',
    },
    {
      method: 'POST',
      at: T0 + 100,
      ms: 7,
      body: rpc(11, 'tools/call', { name: 'read_note', arguments: { id: 'missing' } }),
      status: 200,
      responseHeaders: json,
      mimeType: 'application/json; charset=utf-8',
      text: JSON.stringify({
        jsonrpc: '2.0',
        id: 11,
        result: { isError: true, content: [{ type: 'text', text: 'no note missing' }] },
      }),
    },
    {
      // the client gave up: the request went out, no response came back (HTTP Toolkit writes status 0 and the error)
      method: 'POST',
      at: T0 + 200,
      ms: 30_000,
      body: rpc(12, 'tools/call', { name: 'slow_search', arguments: { q: 'everything' } }),
      status: 0,
      mimeType: 'x-unknown',
      error: 'Connection aborted',
    },
  ];
  const log = {
    version: '1.2',
    creator: { name: 'HTTP Toolkit', version: '1.19.0' },
    pages: [
      { id: 'page_0', title: 'HTTP Toolkit traffic', startedDateTime: new Date(T0).toISOString(), pageTimings: {} },
    ],
    entries: calls.map(entry),
  };
  writeFileSync(path, JSON.stringify({ log }, null, 2));
}

let dir: string;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-har-foreign-'));
  writeChromeHar(join(dir, 'inspector-tab.har'));
  writeHttpToolkitHar(join(dir, 'httptoolkit-export.har'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

const table = (page: Page): Locator => page.getByRole('table', { name: 'Recent exchanges' });
const detail = (page: Page): Locator => page.getByRole('complementary', { name: 'Exchange detail' });
const rowOf = (page: Page, text: string): Locator => table(page).getByRole('row').filter({ hasText: text });

test("a HAR saved by Chrome DevTools: the MCP exchanges, their SSE answers and stream, the session and its client's name", async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open();
  const file = await openFile(page, join(dir, 'inspector-tab.har'), 'inspector-tab.har');
  await expect(file).toContainText('HAR');
  await expect(file).toContainText('4 skipped'); // the preflight, the notification, the GET stream, the DELETE

  // the four MCP exchanges, and only they
  await expect(
    table(page)
      .getByRole('row')
      .filter({ hasText: /initialize|tools\// }),
  ).toHaveCount(4);
  await expect(rowOf(page, 'initialize').getByRole('cell', { name: 'ok', exact: true })).toBeVisible();
  await expect(rowOf(page, 'tools/list').getByRole('cell', { name: 'ok', exact: true })).toBeVisible();
  await expect(table(page).getByRole('row').filter({ hasText: 'forecast' })).toHaveCount(2);
  await expect(table(page).getByRole('cell', { name: 'error -32602' })).toHaveCount(1);

  // the session: the initialize got its id in the response's headers, and names the client
  await page.getByRole('button', { name: 'Group by session' }).click();
  await expect(table(page).getByRole('row').filter({ hasText: 'Session 5f0c9a1e · mcp-inspector' })).toHaveCount(1);
  await expect(table(page).getByRole('row').filter({ hasText: 'Without a session' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Group by session' }).click();

  // the streamed answer: the result in Response and Content, the progress in Stream, Chrome's time as its duration
  await page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Search').fill('Lisbon');
  await expect(table(page).getByRole('row').filter({ hasText: 'forecast' })).toHaveCount(1);
  await table(page).getByRole('row').filter({ hasText: 'forecast' }).click();
  await expect(table(page).locator('tr[aria-selected="true"]')).toContainText('843');
  await detail(page)
    .getByRole('tab', { name: /^Content/ })
    .click();
  await expect(detail(page)).toContainText('Lisbon: sunny, 24 °C');
  await detail(page)
    .getByRole('tab', { name: /^Stream/ })
    .click();
  await expect(detail(page).getByRole('list', { name: 'Streamed messages' })).toContainText('progress 1/2');
  expect(problems).toEqual([]);
});

test('a HAR exported by HTTP Toolkit: a base64 body decoded, a tool error, an aborted request that is not "pending"', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  const file = await openFile(page, join(dir, 'httptoolkit-export.har'), 'httptoolkit-export.har');
  await expect(file).toContainText('HAR');
  await expect(table(page).getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(3);

  await page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Search').fill('Grüße');
  await expect(rowOf(page, 'read_note')).toHaveCount(1);
  await rowOf(page, 'read_note').click();
  await detail(page)
    .getByRole('tab', { name: /^Content/ })
    .click();
  await expect(detail(page)).toContainText('Grüße aus 🗒 Notizen');

  await page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Search').fill('status:tool-error');
  await expect(rowOf(page, 'read_note')).toHaveCount(1);
  await expect(rowOf(page, 'read_note').getByRole('cell', { name: 'tool error' })).toBeVisible();

  // the aborted one ended without an answer: the file says so, and nothing in it is still on its way
  await page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Search').fill('slow_search');
  await expect(rowOf(page, 'slow_search')).toHaveCount(1);
  await expect(rowOf(page, 'slow_search').getByRole('cell', { name: 'pending' })).toHaveCount(0);
  await expect(rowOf(page, 'slow_search').getByRole('cell', { name: 'client gone' })).toBeVisible();
  await rowOf(page, 'slow_search').click();
  await detail(page).getByRole('tab', { name: 'Overview' }).click();
  await expect(detail(page)).toContainText('Connection aborted');
  await page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Search').fill('status:pending');
  await expect(table(page).getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(0);
  expect(problems).toEqual([]);
});
