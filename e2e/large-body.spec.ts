import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer } from '../test/fixtures/sdk-server.js';
import { expect, ROOT, test } from './shell.js';

// A 600 kB tool call on the timeline (real SDK upstream and client, the real engine): the timeline keeps it
// truncated — its memory stays bounded — and says so in the detail, where "Load full body" fetches it from the engine.

test('a large body is truncated on the timeline and loaded in full on demand', async ({ app }) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  const upstream = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-large-'));
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Cassette folder').fill(cassette);
    await form.getByLabel('Name').fill('large');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const proxyRow = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'large' });
    await expect(proxyRow.getByText('running')).toBeVisible();
    mcp = await connectClient((await proxyRow.locator('code').textContent()) ?? '');
    const text = `start ${'0123456789'.repeat(60_000)} end`;
    await mcp.client.callTool({ name: 'echo', arguments: { text } });

    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await table.getByRole('row').filter({ hasText: 'echo' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    const note = detail.getByRole('note').filter({ hasText: 'Large body truncated' });
    await expect(note).toContainText(/request 586 kB, response 586 kB/);
    await detail.getByRole('tab', { name: 'Response' }).click();
    await expect(detail.getByRole('tree', { name: 'Response tree' })).toContainText('$truncated');
    await app.screenshot(join(ROOT, 'docs/screenshots/large-body-1280.png'));

    await note.getByRole('button', { name: 'Load full body' }).click();
    await expect(detail.getByRole('note').filter({ hasText: 'Showing the full exchange' })).toBeVisible();
    await detail.getByRole('tab', { name: 'Content' }).click();
    // the Content tab shows the first 100,000 characters, then more on demand: two steps reach the end of 600,000
    await expect(detail.getByRole('tabpanel')).toContainText('Showing the first 100,000 of 600,016 characters');
    await detail.getByRole('button', { name: 'Show more' }).click();
    await detail.getByRole('button', { name: 'Show more' }).click();
    await expect(detail.getByRole('tabpanel')).toContainText(' end');
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.screenshot(join(ROOT, 'docs/screenshots/large-body-loaded-1440.png'));
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});
