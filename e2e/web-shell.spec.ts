import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { expect, ROOT, test } from './shell.js';

// The app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real Chromium, or the Electron app), driving the real
// engine and a real SDK upstream. No stubbed window APIs.

test.describe('the token gate', () => {
  test.skip(({ shell }) => shell !== 'browser', 'browser shell only: the token gate');

  test('mcp-rewind ui: the page needs the token; with it the UI loads, connects and navigates between views', async ({ app, request }) => {
    const { page, problems } = app;
    const bare = await request.get(app.url.replace(/\?token=.*$/, ''));
    expect(bare.status()).toBe(401);

    await app.open();
    const nav = page.getByRole('navigation', { name: 'Views' });
    await expect(nav).toBeVisible();
    for (const name of ['Timeline', 'Rules', 'Cassettes', 'Export', 'Settings']) await expect(nav.getByRole('button', { name })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
    await expect(page.getByText('Browser')).toBeVisible(); // no preload bridge: the WebSocket transport
    await expect(page.getByRole('status')).toHaveText('connected');
    await expect(page.getByText('No proxy yet')).toBeVisible(); // proxies.list answered over the bridge

    await nav.getByRole('button', { name: 'Cassettes' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cassettes');
    await expect(nav.getByRole('button', { name: 'Cassettes' })).toHaveAttribute('aria-current', 'page');
    await nav.getByRole('button', { name: 'Timeline' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');

    // the cookie set by the first page load lets a reload without the token in
    await page.goto(app.url.replace(/\?token=.*$/, ''));
    await expect(page.getByRole('status')).toHaveText('connected');
    expect(problems).toEqual([]);
  });
});

test('a proxy created from the UI in front of a real SDK server counts the traffic of a real SDK client', async ({ app }) => {
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-cassette-'));
  let mcp: ConnectedClient | undefined;
  try {
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Cassette folder').fill(cassette);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();

    const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'fixture' });
    await expect(row.getByText('running')).toBeVisible();
    await expect(row.getByTestId('exchanges')).toHaveText('0');
    const endpoint = (await row.locator('code').textContent()) ?? '';
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    // a bad input is said beside its field, before anything is sent; the engine's refusal lands beside the field it names
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill('localhost:3000');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByLabel('Upstream URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toHaveText(/^must start with http:\/\/ or https:\/\//);
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByLabel('Name')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toHaveText('a proxy named "fixture" exists already; choose another name');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(form).toBeHidden();

    mcp = await connectClient(endpoint);
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'from the e2e' } });
    await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    // initialize, notifications/initialized?, tools/call ×2 (the engine decides what an exchange is): at least 3
    await expect.poll(async () => Number(await row.getByTestId('exchanges').textContent()), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const recent = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(1);
    await expect(recent.getByRole('row').filter({ hasText: 'add' }).first()).toContainText('tools/call');
    expect(upstream.calls.map((c) => c.tool)).toEqual(['echo', 'add']);

    await page.setViewportSize({ width: 1100, height: 700 });
    await app.screenshot(join(ROOT, 'docs/screenshot.png'));

    // pause holds new exchanges back; clear empties the engine's buffer and the view
    await page.getByRole('button', { name: 'Pause' }).click();
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'while paused' } });
    await expect(page.getByTestId('traffic-count')).toContainText('held while paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(2);
    await page.getByRole('button', { name: 'Clear all' }).click();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges');
    await page.reload();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges'); // cleared in the engine, not only the view

    await row.getByRole('button', { name: 'Stop' }).click();
    await expect(row.getByText('stopped')).toBeVisible();
    await row.getByRole('button', { name: 'Remove fixture…' }).click();
    await row.getByRole('button', { name: 'Remove fixture', exact: true }).click(); // asks first
    await expect(page.getByText('No proxy yet')).toBeVisible();
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});
