import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { newProxy, replaceEditorText } from './inspector-helpers.js';
import { expect, ROOT, test, type App } from './shell.js';

// A conditional breakpoint set in the Breakpoints drawer (issue 25 item 11): only the call whose arguments match is
// held; the other goes straight through. Real SDK upstream and client, the app as a user starts it.

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

/** Screenshots at both sizes into test-results/ (looked at by hand: the condition editor and a held call). */
async function shots(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(ROOT, 'test-results', `${name}-${size.width}x${size.height}.png`) });
  }
}

/**
 * A proxy-only proxy made in the UI in front of a real SDK server, the app at the first size; `run` gets the server
 * and a way to connect a real client to the proxy. The page must have reported no problem; everything is closed after.
 */
async function throughProxy(
  app: App,
  name: string,
  run: (proxy: { upstream: SdkServerHandle; connect(): Promise<ConnectedClient> }) => Promise<void>,
): Promise<void> {
  const upstream: SdkServerHandle = await startSdkServer();
  const clients: ConnectedClient[] = [];
  try {
    await app.page.setViewportSize(SIZES[0]);
    await app.open();
    const row = await newProxy(app.page, { mode: 'proxy-only', name, upstreamUrl: upstream.url });
    await expect(row.getByText('running')).toBeVisible();
    const endpoint = (await row.locator('code').textContent()) ?? '';
    const connect = async (): Promise<ConnectedClient> => {
      const client = await connectClient(endpoint);
      clients.push(client);
      return client;
    };
    await run({ upstream, connect });
    expect(app.problems).toEqual([]);
  } finally {
    for (const client of clients) await client.close();
    await upstream.close();
  }
}

test('a conditional breakpoint set in the UI holds the matching call only', async ({ app }) => {
  const { page } = app;
  await throughProxy(app, 'cond-proxy', async ({ upstream, connect }) => {
    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    const panel = page.getByRole('complementary', { name: 'Breakpoints' });
    const add = panel.getByRole('form', { name: 'Add breakpoint' });
    await add.getByLabel('Tool').fill('echo');
    // typed with the keyboard, as a user would; a bad regular expression is refused with the engine's reason
    await add.getByLabel('Condition path').fill('params.arguments.text');
    await add.getByLabel('Condition operator').selectOption('regex');
    await add.getByLabel('Condition value').fill('secret(');
    await expect(add.getByRole('alert')).toContainText('value: not a regular expression');
    await expect(add.getByRole('button', { name: 'Add breakpoint' })).toBeDisabled();
    await add.getByLabel('Condition path').fill('params..');
    await expect(add.getByRole('alert')).toContainText('path: field pattern "params.."');
    await add.getByLabel('Condition path').fill('params.arguments.text');
    await add.getByLabel('Condition operator').selectOption('contains');
    await add.getByLabel('Condition value').fill('secret');
    await expect(add.getByRole('alert')).toHaveCount(0);
    await shots(page, 'condition-editor');
    await add.getByLabel('Condition value').press('Enter'); // Enter adds it
    const list = panel.getByRole('list', { name: 'Breakpoint list' });
    const rule = list.getByRole('listitem');
    await expect(rule).toHaveCount(1);
    await expect(rule.locator('.bp-if')).toHaveText('if params.arguments.text contains "secret"');
    await expect(
      rule.getByRole('button', {
        name: 'Remove breakpoint echo if params.arguments.text contains "secret" before request',
      }),
    ).toBeVisible();
    await expect(add.getByLabel('Condition value')).toHaveValue('');

    const mcp = await connect();
    // does not match: answered with nobody resuming it
    const free = await mcp.client.callTool({ name: 'echo', arguments: { text: 'public words' } });
    expect(free.content).toEqual([{ type: 'text', text: 'echo: public words' }]);
    await expect(panel.getByRole('article')).toHaveCount(0);

    let settled = false;
    const pending = mcp.client
      .callTool({ name: 'echo', arguments: { text: 'a secret word' } })
      .finally(() => (settled = true));
    const card = panel.getByRole('article', { name: 'Paused echo before request' });
    await expect(card).toBeVisible();
    await expect(card.getByTestId('bp-matched')).toHaveText('held by echo if params.arguments.text contains "secret"');
    await expect(card.getByLabel('echo arguments', { exact: true })).toContainText('a secret word');
    await expect(panel.getByRole('article')).toHaveCount(1); // only the matching call is held
    expect(settled).toBe(false);
    expect(upstream.calls.map((c) => c.args)).toEqual([{ text: 'public words' }]);
    await shots(page, 'conditional-breakpoint-held');

    await card.getByRole('button', { name: 'Resume' }).click();
    expect((await pending).content).toEqual([{ type: 'text', text: 'echo: a secret word' }]);
    await expect(card).toHaveCount(0);

    // another method, in every proxy: a resources/read held by a condition on its URI, its params edited
    await add.getByLabel('Proxy').selectOption({ label: 'Every proxy' });
    await add.getByLabel('Method').fill('initialize');
    await expect(add.getByRole('alert')).toContainText('initialize cannot be held');
    await add.getByLabel('Method').fill('resources/read');
    await add.getByLabel('URI').fill('*');
    await add.getByLabel('Condition path').fill('params.uri');
    await add.getByLabel('Condition operator').selectOption('regex');
    await add.getByLabel('Condition value').fill('^fixture://');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(list.getByRole('listitem').filter({ hasText: 'Every proxy' })).toContainText('resources/read');
    const reading = mcp.client.readResource({ uri: 'fixture://elsewhere' });
    const read = panel.getByRole('article', { name: 'Paused resources/read fixture://elsewhere before request' });
    await expect(read.getByLabel('resources/read fixture://elsewhere params', { exact: true })).toContainText(
      'fixture://elsewhere',
    );
    await replaceEditorText(page, 'resources/read fixture://elsewhere params', '{ "uri": "fixture://hello" }');
    await read.getByRole('button', { name: 'Resume' }).click();
    expect((await reading).contents).toEqual([
      { uri: 'fixture://hello', mimeType: 'text/plain', text: 'hello resource' },
    ]);
  });
});

test('a conditional rule set in the Rules view overrides only the matching calls', async ({ app }) => {
  const { page } = app;
  await throughProxy(app, 'cond-rules', async ({ upstream, connect }) => {
    const mcp = await connect();
    await mcp.client.listTools();

    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByTestId('tool-echo').click();
    const editor = page.getByRole('region', { name: 'Rule for echo' });
    await editor.getByRole('radio', { name: 'override' }).check();
    await editor.getByLabel('Text', { exact: true }).fill('blocked by a rule');
    const condition = editor.getByRole('group', { name: 'Condition of echo' });
    await condition.getByLabel('Condition value').fill('rm -rf');
    // a value without a path: refused with the reason, and Apply waits
    await expect(condition.getByRole('alert')).toContainText('path: a path is needed');
    const apply = page.getByRole('button', { name: 'Apply', exact: true });
    await expect(apply).toBeDisabled();
    await condition.getByLabel('Condition path').fill('params.arguments.text');
    await expect(condition.getByRole('alert')).toHaveCount(0);
    await expect(editor).toContainText('calls that do not match are relayed unchanged');
    await expect(page.getByTestId('rules-json')).toContainText('"path": "params.arguments.text"');
    await shots(page, 'rules-condition');
    await apply.click();
    await expect(page.getByTestId('rules-notified')).toContainText('Applied');

    const blocked = await mcp.client.callTool({ name: 'echo', arguments: { text: 'please rm -rf /' } });
    expect(blocked.content).toEqual([{ type: 'text', text: 'blocked by a rule' }]);
    const relayed = await mcp.client.callTool({ name: 'echo', arguments: { text: 'ls' } });
    expect(relayed.content).toEqual([{ type: 'text', text: 'echo: ls' }]);
    expect(upstream.calls.map((c) => c.args)).toEqual([{ text: 'ls' }]);
  });
});
