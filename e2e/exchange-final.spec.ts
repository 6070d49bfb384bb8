import type { Locator } from '@playwright/test';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { expect, test } from './shell.js';

// Every exchange ends in a final state, and the timeline's row, its Overview and its Response tab say which: the app
// as a user starts it (e2e/shell.ts), a real SDK upstream that restarts under the session, a real SDK client.

test('a call the restarted upstream refused at the HTTP level ends so on the row, in the Overview and the Response tab, never "pending"', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  const servers: SdkServerHandle[] = [await startSdkServer({ unknownSession: 400 })];
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('proxy-only');
    await form.getByLabel('Upstream URL').fill(servers[0].url);
    await form.getByLabel('Name').fill('restarting');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const proxyRow = page
      .getByRole('list', { name: 'Proxy list' })
      .getByRole('listitem')
      .filter({ hasText: 'restarting' });
    await expect(proxyRow.getByText('running')).toBeVisible();
    const endpoint = (await proxyRow.locator('code').textContent()) ?? '';

    mcp = await connectClient(endpoint);
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'before the restart' } });

    // the upstream restarts on its port: the proxy's session is unknown to it, the next call is refused (HTTP 400, as
    // the SDK's example servers answer)
    await servers[0].close();
    servers.push(await startSdkServer({ port: servers[0].port, unknownSession: 400 }));
    const refused = await mcp.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);

    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const row = (tool: string): Locator =>
      table
        .getByRole('row')
        .filter({ hasText: 'tools/call' })
        .filter({ has: page.getByRole('cell', { name: tool, exact: true }) });
    await expect(row('add').getByRole('cell', { name: 'HTTP 400', exact: true })).toBeVisible();
    await expect(row('echo').getByRole('cell', { name: 'ok', exact: true })).toBeVisible();
    await expect(table.getByRole('cell', { name: 'pending', exact: true })).toHaveCount(0);

    await row('add').click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await detail.getByRole('tab', { name: 'Overview' }).click();
    await expect(detail.getByRole('tabpanel')).toContainText(
      'HTTP 400 — the upstream answered HTTP 400: Bad Request: No valid session ID provided',
    );
    await expect(detail.getByRole('tabpanel')).toContainText('upstream answered HTTP 400');
    await detail.getByRole('tab', { name: 'Response' }).click();
    await expect(detail.getByRole('tabpanel')).toContainText('No answer: HTTP 400');
    await expect(detail.getByRole('tabpanel')).not.toContainText('Waiting for the response');

    expect(problems).toEqual([]);
  } finally {
    await mcp?.close().catch(() => {});
    for (const server of servers) await server.close().catch(() => {});
  }
});
