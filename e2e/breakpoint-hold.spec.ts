import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { expect, test } from './shell.js';

// The breakpoint hold as a user meets it (e2e/shell.ts: the app in real Chromium, a real SDK upstream and client): the
// countdown starts at the hold, the drawer says the hold beside the clients' usual timeout, and a call its client
// cancels is released at once, its row saying so.

const seconds = (text: string): number => {
  const [m, s] = text.trim().split(':').map(Number);
  return m * 60 + s;
};

test('the countdown starts at the hold, not seconds above it; a cancelled held call is released at once and its row says so', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('proxy-only');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Name').fill('hold-proxy');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const proxyRow = page
      .getByRole('list', { name: 'Proxy list' })
      .getByRole('listitem')
      .filter({ hasText: 'hold-proxy' });
    await expect(proxyRow.getByText('running')).toBeVisible();
    const endpoint = (await proxyRow.locator('code').textContent()) ?? '';

    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    const panel = page.getByRole('complementary', { name: 'Breakpoints' });
    const add = panel.getByRole('form', { name: 'Add breakpoint' });
    await add.getByLabel('Proxy').selectOption({ label: 'hold-proxy' });
    await add.getByLabel('Tool').fill('echo');
    await add.getByLabel('When').selectOption('request');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(panel.getByTestId('bp-hold')).toContainText('resumes unchanged after 45 s');
    await expect(panel.getByTestId('bp-hold')).toContainText('Most MCP clients give up after 60 s');

    mcp = await connectClient(endpoint);
    const banner = page.getByRole('region', { name: 'Paused calls' });
    const first = mcp.client.callTool({ name: 'echo', arguments: { text: 'one' } });
    await expect(banner.locator('.countdown')).toBeVisible();
    await banner.getByRole('button', { name: 'Resume echo' }).click();
    await first;
    await expect(banner).toHaveCount(0);

    // a while later, a second hold: its countdown must start at the hold (the clock of the last one stopped long ago)
    await page.waitForTimeout(3_000);
    const abort = new AbortController();
    const second = mcp.client
      .callTool({ name: 'echo', arguments: { text: 'two' } }, undefined, { signal: abort.signal })
      .catch((e: Error) => e);
    await expect(banner.locator('.countdown')).toBeVisible();
    const shown = seconds((await banner.locator('.countdown').textContent()) ?? '');
    expect(shown).toBeLessThanOrEqual(45);
    expect(shown).toBeGreaterThanOrEqual(42);

    // the client cancels the held call: released at once (not after the hold), and the row says cancelled
    abort.abort('the user gave up');
    await second;
    await expect(banner).toHaveCount(0, { timeout: 5_000 });
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const cancelled = table
      .getByRole('row')
      .filter({ hasText: 'tools/call' })
      .filter({ has: page.getByRole('cell', { name: 'cancelled', exact: true }) });
    await expect(cancelled).toHaveCount(1);
    expect(upstream.calls.map((c) => c.args)).toEqual([{ text: 'one' }]); // the cancelled call never went upstream
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close().catch(() => {});
    await upstream.close();
  }
});
