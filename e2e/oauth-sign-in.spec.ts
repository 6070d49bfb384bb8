import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connectClient } from '../test/fixtures/client.js';
import { ownAccessToken, startDemoOAuthServer, type DemoOAuthServer } from '../test/helpers/oauth.js';
import { messagesOfBody } from '../src/main/engine/cassette/served-body.js';
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

test('a sign-in the user refuses: the tab and the row say so, naming the step; the waiting agent gets -32007; Sign in again works', async ({
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
  await form.getByLabel('Name').fill('refused');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 15_000 });
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy refused' });
  await expect(row.locator('.badge')).toHaveText('sign-in required', { timeout: 15_000 });
  const endpoint = (await row.locator('.proxy-endpoint').textContent()) ?? '';

  // The demo authorization server approves at once: it has no consent page to say no on. What its Deny button would
  // do is done to the tab's request: the redirect back to the proxy carries error=access_denied and the same state.
  const authorize = /\/authorize\?/;
  await page.context().route(authorize, async (route) => {
    const asked = new URL(route.request().url());
    const back = new URL(asked.searchParams.get('redirect_uri') ?? '');
    back.search = new URLSearchParams({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: asked.searchParams.get('state') ?? '',
    }).toString();
    await route.fulfill({ status: 302, headers: { location: back.href } });
  });

  // an agent connects meanwhile: its initialize waits for the sign-in
  const waiting = connectClient(endpoint).then(
    async (client) => (await client.close(), undefined),
    (error: { code?: number; message: string }) => error,
  );
  const tabOpened = page.context().waitForEvent('page');
  await row.getByRole('button', { name: 'Sign in to the upstream of refused' }).click();
  const tab = await tabOpened;
  await expect(tab.locator('body')).toHaveText(
    'Sign-in refused: the authorization server answered access_denied (The user denied the request)',
    { timeout: 15_000 },
  );
  await tab.close();
  await expect(row.getByRole('alert')).toHaveText(
    /^Sign-in failed at authorization: the authorization server answered access_denied \(The user denied the request\)/,
  );
  await expect(row.locator('.badge')).toHaveText('sign-in required');
  const refusal = await waiting;
  expect(refusal?.code).toBe(-32007);
  expect(refusal?.message).toContain('access_denied');

  // the user tries again, and this time says yes
  await page.context().unroute(authorize);
  const again = page.context().waitForEvent('page');
  await row.getByRole('button', { name: 'Sign in to the upstream of refused' }).click();
  await expect((await again).locator('body')).toContainText('Signed in to', { timeout: 15_000 });
  await expect(row.locator('.badge')).toHaveText('running', { timeout: 15_000 });
  await expect(row.getByRole('alert')).toHaveCount(0);
  const agent = await connectClient(endpoint);
  expect(await agent.client.callTool({ name: 'greet', arguments: { name: 'again' } })).toEqual({
    content: [{ type: 'text', text: 'Hello, again!' }],
  });
  await agent.close();
  expect(problems).toEqual([]);
});

// The user guide promises that Copy as curl writes "a header that needs a secret as a $VARIABLE": an agent that signed
// in to the upstream by itself gets its calls through, the proxy's row says so (the start probe's 401 no longer
// counts), and the script asks for the agent's token as $MCP_TOKEN.
test("Copy as curl through a proxy that passes the agent's own Authorization: the script asks for $MCP_TOKEN, never holds it, and runs", async ({
  app,
}) => {
  test.setTimeout(60_000);
  server = await startDemoOAuthServer();
  const token = await ownAccessToken(server.url); // the agent signed in to the upstream by itself
  const { page, problems } = app;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await app.open();
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption('proxy-only');
  await form.getByLabel('Upstream URL').fill(server.url);
  await form.getByLabel('Name').fill('own-token');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 15_000 });
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy own-token' });
  // the start probe got the upstream's 401: the proxy asks for a sign-in until the agent's own token gets through
  await expect(row.getByRole('button', { name: 'Sign in to the upstream of own-token' })).toBeVisible();
  const endpoint = (await row.locator('.proxy-endpoint').textContent()) ?? '';
  const agent = await connectClient(endpoint, { headers: { Authorization: `Bearer ${token}` } });
  expect(await agent.client.callTool({ name: 'greet', arguments: { name: 'curl' } })).toEqual({
    content: [{ type: 'text', text: 'Hello, curl!' }],
  });
  await agent.close();
  // the proxy holds no sign-in of its own: the agent's token went through as is, and the row says so
  await expect(row.locator('.badge')).toHaveText('running', { timeout: 15_000 });
  await expect(row.getByTestId('signed-in')).toHaveText("client's own sign-in");
  await expect(row.getByRole('button', { name: 'Sign in to the upstream of own-token' })).toHaveCount(0);

  await page.getByRole('table', { name: 'Recent exchanges' }).getByRole('row').filter({ hasText: 'greet' }).click();
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  await detail.getByRole('button', { name: 'Copy as ▾' }).click();
  await page.getByRole('menuitem', { name: /^curl/ }).click();
  const script = await page.evaluate(() => navigator.clipboard.readText());
  expect(script).toContain('$MCP_TOKEN');
  expect(script).not.toContain(token);
  const { stdout } = await promisify(execFile)('sh', ['-c', script], {
    timeout: 30_000,
    env: { ...process.env, MCP_TOKEN: token },
  });
  const answer = messagesOfBody(stdout).find((m) => 'id' in m && m.id === 1 && 'result' in m) as { result: unknown };
  expect(answer?.result).toEqual({ content: [{ type: 'text', text: 'Hello, curl!' }] });
  expect(problems).toEqual([]);
});
