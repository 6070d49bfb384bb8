import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectClient } from '../test/fixtures/client.js';
import { startRawUpstream } from '../test/helpers/raw-upstream.js';
import { expect, test } from './shell.js';

// The New proxy form's upstream limits, as a user sets them: a field with the default as placeholder, a problem shown
// beside it, and a proxy whose upstream never answers cutting the call at the timeout the user gave.

test('New proxy: "Upstream timeout" 2 cuts a call the upstream never answers, and the timeline says which limit', async ({
  app,
}) => {
  const { page, problems } = app;
  const upstream = await startRawUpstream();
  try {
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('proxy-only');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    const timeout = form.getByLabel('Upstream timeout');
    await expect(timeout).toHaveAttribute('placeholder', '60');
    await expect(form.getByLabel('Upstream max time')).toHaveAttribute('placeholder', '600');
    await timeout.fill('soon');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByRole('alert')).toHaveText('a number of seconds (0: no limit; empty: the default)');
    await timeout.fill('2');
    await form.getByLabel('Name').fill('stalling');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'stalling' });
    await expect(row.getByText('running')).toBeVisible({ timeout: 15_000 });
    const url = (await row.locator('code').first().textContent()) ?? '';

    const client = await connectClient(url);
    const error = await client.client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 30_000 }).then(
      () => undefined,
      (e: Error) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32005);
    expect(error?.message).toContain('per-call timeout (2 s)');
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await table.getByRole('row').filter({ hasText: 'hang' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail).toContainText('timed out'); // its final state (issue 25 item 1); the client got -32005
    await detail.getByRole('tab', { name: 'Response' }).click();
    await expect(detail).toContainText('-32005');
    await expect(detail).toContainText('per-call timeout (2 s)');
    expect(problems).toEqual([]);
  } finally {
    await upstream.close();
  }
});
