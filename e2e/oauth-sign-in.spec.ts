import { connectClient } from '../test/fixtures/client.js';
import { startDemoOAuthServer, type DemoOAuthServer } from '../test/helpers/oauth.js';
import { expect, test } from './shell.js';

// Issue 24 in the app: a proxy in front of the SDK's OAuth-protected example server (its demo authorization server
// "logs in" at once) says *sign-in required*; its Sign in button opens the authorization server's page in a new tab of
// the same Chromium, which the server redirects to the proxy's 127.0.0.1 callback; the row turns *running*, *signed
// in*, and an agent without any credential is answered; Sign out makes it ask again. `mcp-rewind ui` as a real
// process, the page in real Chromium, the sign-in followed by Chromium itself. No stubbed window APIs.

test.skip(
  ({ shell }) => shell !== 'browser',
  'the browser shell: the desktop app opens the system browser instead (shell.openExternal)',
);

let server: DemoOAuthServer | undefined;
test.afterEach(async () => {
  await server?.stop();
  server = undefined;
});

test('Sign in: the tab follows the authorization server back to the proxy; the proxy turns running; Sign out asks again', async ({
  app,
}) => {
  test.setTimeout(60_000);
  server = await startDemoOAuthServer();
  const { page, problems } = app;
  await app.open();
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption('proxy-only');
  await form.getByLabel('Upstream URL').fill(server.url);
  await form.getByLabel('Name').fill('protected');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 15_000 });

  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy protected' });
  await expect(row.locator('.badge')).toHaveText('sign-in required', { timeout: 15_000 });
  await expect(row.getByRole('alert')).toContainText('The upstream needs a sign-in');

  const tabOpened = page.context().waitForEvent('page');
  await row.getByRole('button', { name: 'Sign in to the upstream of protected' }).click();
  const tab = await tabOpened;
  // Chromium goes to the authorization server, which redirects to the proxy's loopback callback
  await expect(tab.locator('body')).toContainText(`Signed in to ${server.url}. You can close this tab.`, {
    timeout: 15_000,
  });
  expect(new URL(tab.url()).origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(tab.url()).not.toContain('access_token');
  await tab.close();

  await expect(row.locator('.badge')).toHaveText('running', { timeout: 15_000 });
  await expect(row.getByTestId('signed-in')).toHaveText('signed in');
  const endpoint = (await row.locator('.proxy-endpoint').textContent()) ?? '';
  const agent = await connectClient(endpoint);
  expect(await agent.client.callTool({ name: 'greet', arguments: { name: 'Chromium' } })).toEqual({
    content: [{ type: 'text', text: 'Hello, Chromium!' }],
  });
  await agent.close();

  await row.getByRole('button', { name: 'Sign out of the upstream of protected' }).click();
  await expect(row.locator('.badge')).toHaveText('sign-in required');
  await expect(row.getByRole('button', { name: 'Sign in to the upstream of protected' })).toBeVisible();
  expect(problems).toEqual([]);
});
