import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { replaceEditorText } from './inspector-helpers.js';
import { expect, ROOT, test } from './shell.js';

// Breakpoints from the app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real Chromium, or the Electron app),
// with the real engine, a real SDK upstream and a real SDK client. No stubbed window APIs.

test('a breakpoint before request holds a real client call; the arguments edited in the UI reach the upstream', async ({
  app,
}) => {
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1200, height: 900 });
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('proxy-only');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Name').fill('bp-proxy');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'bp-proxy' });
    await expect(row.getByText('running')).toBeVisible();
    const endpoint = (await row.locator('code').textContent()) ?? '';

    await page.getByRole('button', { name: /^Breakpoints/ }).click(); // the Breakpoints drawer
    const panel = page.getByRole('complementary', { name: 'Breakpoints' });
    const add = panel.getByRole('form', { name: 'Add breakpoint' });
    await add.getByLabel('Proxy').selectOption({ label: 'bp-proxy' });
    await add.getByLabel('Tool').fill('echo');
    await add.getByLabel('When').selectOption('request');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(panel.getByRole('list', { name: 'Breakpoint list' })).toContainText('echo');

    mcp = await connectClient(endpoint);
    let settled = false;
    const pending = mcp.client
      .callTool({ name: 'echo', arguments: { text: 'from the client' } })
      .finally(() => (settled = true));
    const card = panel.getByRole('article', { name: 'Paused echo before request' });
    await expect(card).toBeVisible();
    await expect(card.getByLabel('echo arguments', { exact: true })).toContainText('from the client');
    expect(settled).toBe(false); // the call hangs at the breakpoint
    expect(upstream.calls).toEqual([]);

    await replaceEditorText(page, 'echo arguments', '{ "text": "oops" ');
    await expect(card.getByRole('alert')).toContainText('not JSON');
    await expect(card.getByRole('button', { name: 'Resume' })).toBeDisabled();
    await replaceEditorText(page, 'echo arguments', '{ "text": "edited in the UI" }');
    await expect(card).toContainText('edited arguments: valid');
    await app.screenshot(join(ROOT, 'docs/screenshots/breakpoints.png'));

    await card.getByRole('button', { name: 'Resume' }).click();
    const result = await pending;
    expect(result.content).toEqual([{ type: 'text', text: 'echo: edited in the UI' }]);
    expect(upstream.calls.map((c) => c.args)).toEqual([{ text: 'edited in the UI' }]);
    await expect(card).toHaveCount(0);

    // before response: a result that is not a CallToolResult cannot be resumed; Fail answers -32006
    await add.getByLabel('Tool').fill('add');
    await add.getByLabel('When').selectOption('response');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(panel.getByRole('list', { name: 'Breakpoint list' }).getByRole('listitem')).toHaveCount(2);
    const failing = mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }).catch((e: unknown) => e);
    const held = panel.getByRole('article', { name: 'Paused add before response' });
    await expect(held.getByLabel('add result', { exact: true })).toContainText('"sum": 5');
    await replaceEditorText(page, 'add result', '{ "content": "five" }');
    await expect(held.getByRole('alert')).toContainText('not a CallToolResult');
    await held.getByLabel('Failure message').fill('stopped in the e2e');
    await held.getByRole('button', { name: 'Fail' }).click();
    const error = await failing;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32006);
    expect((error as McpError).message).toContain('failed at a breakpoint: stopped in the e2e');

    // removing the breakpoints lets calls through untouched
    await panel.getByRole('button', { name: 'Remove breakpoint echo before request' }).click();
    await panel.getByRole('button', { name: 'Remove breakpoint add before response' }).click();
    await expect(panel.getByText('No breakpoints')).toBeVisible();
    expect((await mcp.client.callTool({ name: 'echo', arguments: { text: 'free' } })).content).toEqual([
      { type: 'text', text: 'echo: free' },
    ]);
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
  }
});
