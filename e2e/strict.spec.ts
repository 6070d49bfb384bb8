import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { connectClient } from '../test/fixtures/client.js';
import { expect, ROOT, test } from './shell.js';

// The New proxy form's Strict box (issue 21 item 17) in real Chromium against `mcp-rewind ui`: shown for replay only,
// kept with the proxy; the proxy it makes answers a miss with the closest recorded key and what differs.

test('Strict: a replay proxy made with it answers a miss with the closest recorded key and the difference', async ({
  app,
}) => {
  const { page } = app;
  await app.open();
  const cassette = join(app.dataDir, 'strict-cassette');
  await cp(join(ROOT, 'test/fixtures/mcp-rewind-cache'), cassette, { recursive: true });

  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption('record');
  await expect(form.getByLabel('Strict')).toHaveCount(0); // nothing misses outside replay
  await form.getByLabel('Mode').selectOption('replay');
  await form.getByLabel('Cassette folder').fill(cassette);
  await form.getByLabel('Strict').check();
  await form.getByLabel('Name').fill('strict-replay');
  await app.screenshot(join(ROOT, 'test-results/new-proxy-strict.png'));
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 15_000 });
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy strict-replay' });
  await expect(row.getByText('running', { exact: true })).toBeVisible({ timeout: 15_000 });

  const url = (await row.locator('code.proxy-endpoint').textContent()) as string;
  const agent = await connectClient(url);
  try {
    const refused = await agent.client.callTool({ name: 'echo', arguments: { text: 'Hello' } }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(refused).toContain(
      'closest recorded tools_call_echo_cbbbdcd27692344d (arguments.text: "hello" recorded, "Hello" asked)',
    );
  } finally {
    await agent.close();
  }
});
