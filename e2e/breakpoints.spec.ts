import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { newProxy, replaceEditorText, savedSettings } from './inspector-helpers.js';
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

const VIEWS = ['Timeline', 'Rules', 'Cassettes', 'Export', 'Settings', 'Intercept'] as const;

test('a held call from every view: the banner on each, its result edited and resumed, failed from the banner, timed out unchanged', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'everywhere', upstreamUrl: upstream.url });
    await expect(row.getByText('running')).toBeVisible();
    const endpoint = (await row.locator('code').textContent()) ?? '';
    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Breakpoints' });
    const add = drawer.getByRole('form', { name: 'Add breakpoint' });
    await add.getByLabel('Tool').fill('echo');
    await add.getByLabel('When').selectOption('response');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(drawer.getByRole('list', { name: 'Breakpoint list' })).toContainText('echo');
    await drawer.getByRole('button', { name: 'Close breakpoints' }).click();
    mcp = await connectClient(endpoint);
    const nav = page.getByRole('navigation', { name: 'Views' });
    const banner = page.getByRole('region', { name: 'Paused calls' });

    // held before its answer: every view says so, with its countdown and its three buttons
    const edited = mcp.client.callTool({ name: 'echo', arguments: { text: 'first' } });
    for (const view of VIEWS) {
      await nav.getByRole('button', { name: view }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(view);
      await expect(banner).toContainText('echo held before response on everywhere');
      await expect(banner.locator('.countdown')).toHaveText(/^0:[0-4]\d$/);
      for (const verb of ['Resume', 'Fail', 'Open'])
        await expect(banner.getByRole('button', { name: `${verb} echo` })).toBeVisible();
    }
    // Open (from Intercept) goes to the drawer's editor: the result edited there is what the client gets
    await banner.getByRole('button', { name: 'Open echo' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
    const card = drawer.getByRole('article', { name: 'Paused echo before response' });
    await expect(card.getByLabel('echo result', { exact: true })).toContainText('echo: first');
    await replaceEditorText(
      page,
      'echo result',
      '{ "content": [{ "type": "text", "text": "edited at the breakpoint" }] }',
    );
    await card.getByRole('button', { name: 'Resume' }).click();
    expect((await edited).content).toEqual([{ type: 'text', text: 'edited at the breakpoint' }]);
    await drawer.getByRole('button', { name: 'Close breakpoints' }).click();
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(table.getByRole('row').filter({ hasText: 'result edited at a breakpoint' })).toContainText(
      '✎ changed',
    );

    // Fail from the banner of another view: the client gets the breakpoint's error
    await nav.getByRole('button', { name: 'Export' }).click();
    const failed = mcp.client.callTool({ name: 'echo', arguments: { text: 'second' } }).catch((e: unknown) => e);
    await banner.getByRole('button', { name: 'Fail echo' }).click();
    const error = await failed;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32006);
    await expect(banner).toHaveCount(0);

    // timed out: with the shortest hold (Settings, 5 s) a call nobody touches resumes unchanged by itself
    await nav.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Breakpoint hold (seconds)').fill('5');
    await page.getByLabel('Breakpoint hold (seconds)').blur();
    await expect.poll(() => savedSettings(app.dataDir).breakpointHoldS).toBe(5);
    const started = Date.now();
    const untouched = mcp.client.callTool({ name: 'echo', arguments: { text: 'third' } });
    await expect(banner.locator('.countdown')).toHaveText(/^0:0[0-5]$/);
    expect((await untouched).content).toEqual([{ type: 'text', text: 'echo: third' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500); // it was held, then let go by the hold's end
    await expect(banner).toHaveCount(0);
    await nav.getByRole('button', { name: 'Timeline' }).click();
    await expect(table.getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(3);
    // the timed-out one is not changed, and its row says why it took the whole hold
    const timedOut = table.getByRole('row').filter({ hasText: 'resumed unchanged at the hold' });
    await expect(timedOut).toHaveCount(1);
    await expect(timedOut).toContainText("held at a breakpoint for 5 s: resumed unchanged at the hold's end");
    await expect(timedOut).not.toContainText('✎ changed');
    await expect(table.getByRole('row').filter({ hasText: 'failed at a breakpoint' })).toContainText('error -32006');
    expect(upstream.calls.map((c) => c.args)).toEqual([{ text: 'first' }, { text: 'second' }, { text: 'third' }]);
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
  }
});
