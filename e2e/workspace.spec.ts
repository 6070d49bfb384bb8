import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { startCustomUpstream } from '../test/helpers/custom-upstream.js';
import { count, pageScrolls, rowsInView } from './layout.js';
import { expect, ROOT, test } from './shell.js';
import { newProxy, savedSettings } from './inspector-helpers.js';
import type { Settings } from '../src/shared/settings.js';

// The inspector workspace (issue 9) against the app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real
// Chromium), the real engine, real SDK peers; at 1280×720 and 1440×900. No stubbed window APIs.

const SHOTS = join(ROOT, 'docs/screenshots');
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

for (const size of SIZES) {
  test(`first start at ${size.width}×${size.height}: the demo's traffic fills the window (≥15 rows), the page never scrolls`, async ({
    app,
  }) => {
    const { page, problems } = app;
    await page.setViewportSize(size);
    await app.open();
    await expect(page.getByRole('status')).toHaveText('connected');
    for (let run = 1; run <= 3; run++) {
      await page.getByRole('button', { name: 'Run demo' }).click();
      await expect
        .poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 })
        .toBeGreaterThanOrEqual(7 * run);
    }
    await expect.poll(() => rowsInView(page)).toBeGreaterThanOrEqual(15);
    expect(await pageScrolls(page)).toBe(false);
    // the filters take one line: the search box and its count beside the selects
    const middle = async (locator: Locator): Promise<number> => {
      const box = await locator.boundingBox();
      return box ? box.y + box.height / 2 : NaN;
    };
    const filters = page.getByRole('search', { name: 'Filter exchanges' });
    const line = await middle(filters.getByRole('combobox').first());
    for (const part of [filters.getByLabel('Search'), page.getByTestId('filter-count')])
      expect(Math.abs((await middle(part)) - line)).toBeLessThan(6);
    await app.screenshot(join(SHOTS, `workspace-${size.width}.png`));

    // a row opens its detail beside the table; the selected row stays in view; still no page scroll
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await table.getByRole('row').filter({ hasText: 'long-task' }).last().click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail).toBeVisible();
    await expect(table.locator('tr[aria-selected="true"]')).toBeInViewport();
    expect(await pageScrolls(page)).toBe(false);
    await detail.getByRole('tab', { name: /^Stream/ }).click();
    await expect(detail.getByRole('list', { name: 'Streamed messages' }).getByRole('listitem')).toHaveCount(5);
    await app.screenshot(join(SHOTS, `workspace-detail-${size.width}.png`));
    expect(problems).toEqual([]);
  });
}

test('the split: open, resize (remembered in the settings), below instead of beside, close', async ({ app }) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open();
  await page.getByRole('button', { name: 'Run demo' }).click();
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  await expect(table.getByRole('row').filter({ hasText: 'logo' })).toHaveCount(1, { timeout: 20_000 });
  await table.getByRole('row').filter({ hasText: 'logo' }).click();
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  await expect(detail).toBeVisible();

  // rendered content: the demo's image is an image
  await detail.getByRole('tab', { name: 'Content' }).click();
  await expect(detail.getByRole('img', { name: 'image (image/png)' })).toBeVisible();
  expect(await detail.getByRole('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

  // drag the separator to the left: the detail grows, and the size goes into settings.json
  const separator = page.getByRole('separator', { name: 'Resize the table and the detail' });
  const before = (await detail.boundingBox())!.width;
  const handle = (await separator.boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x - 200, handle.y + handle.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect.poll(async () => (await detail.boundingBox())!.width).toBeGreaterThan(before + 150);
  const settings = (): Partial<Settings> => savedSettings(app.dataDir);
  await expect.poll(() => settings().timelineLayout?.side, { timeout: 5_000 }).toBeLessThan(55);
  const side = settings().timelineLayout?.side;

  // the keyboard resizes too (the separator is focusable)
  await separator.focus();
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => settings().timelineLayout?.side).not.toBe(side);

  // below instead of beside; then back; a reload opens the split as it was left
  await page.getByRole('button', { name: 'Detail below the table' }).click();
  await expect.poll(() => settings().timelineLayout?.split).toBe('bottom');
  const below = (await detail.boundingBox())!;
  const tableBox = (await page.getByTestId('timeline-scroll').boundingBox())!;
  expect(below.y).toBeGreaterThan(tableBox.y + tableBox.height - 2);
  await page.getByRole('button', { name: 'Detail beside the table' }).click();
  await expect.poll(() => settings().timelineLayout?.split).toBe('side');
  const widthNow = (await detail.boundingBox())!.width;
  await page.reload();
  await table.getByRole('row').filter({ hasText: 'logo' }).click();
  await expect.poll(async () => Math.abs((await detail.boundingBox())!.width - widthNow)).toBeLessThan(24);

  await detail.getByRole('button', { name: 'Close detail' }).click();
  await expect(detail).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('honest states: an unreachable upstream and a missing replay folder fail with their reasons; Retry', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  const gone: SdkServerHandle = await startSdkServer();
  const port = Number(new URL(gone.url).port);
  await gone.close();
  // the dialog says what is wrong beside the field, before anything is sent
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Upstream URL').fill('127.0.0.1:3000/mcp');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form.getByLabel('Upstream URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toHaveText('not a URL (e.g. http://127.0.0.1:3000/mcp)');
  await expect(form.getByText(/^empty: .*cassettes$/)).toBeVisible(); // the default folder from Settings
  await app.screenshot(join(SHOTS, 'new-proxy.png'));
  // replay (and hybrid) proxies take a replay timing: none, recorded, or a speed; anything else is said beside it
  await form.getByLabel('Mode').selectOption('replay');
  await expect(
    form.getByText(
      'none: at once; recorded: the recorded latency and spacing of streamed messages; x2 / x0.5: twice / half as fast',
    ),
  ).toBeVisible();
  await form.getByLabel('Replay timing').fill('slowly');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form.getByLabel('Replay timing')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert').filter({ hasText: 'none, recorded, or x<speed>' })).toBeVisible();
  await app.screenshot(join(SHOTS, 'new-proxy-replay-timing.png'));
  await form.getByLabel('Mode').selectOption('record');
  await expect(form.getByLabel('Replay timing')).toHaveCount(0);
  await form.getByRole('button', { name: 'Cancel' }).click();
  const down = await newProxy(page, { mode: 'proxy-only', name: 'down', upstreamUrl: `http://127.0.0.1:${port}/mcp` });
  await expect(down.getByText('upstream unreachable')).toBeVisible();
  await expect(down.getByRole('alert')).toContainText(
    `Upstream URL http://127.0.0.1:${port}/mcp did not answer an MCP initialize`,
  );
  await expect(down.getByRole('alert')).toContainText('ECONNREFUSED');
  await expect(down.locator('code')).toHaveCount(0); // no endpoint to hand out

  const replay = await newProxy(page, {
    mode: 'replay',
    name: 'replay-missing',
    cacheDir: join(app.dataDir, 'no-such-cassette'),
  });
  await expect(replay.getByText('cassette missing')).toBeVisible();
  await expect(replay.getByRole('alert')).toContainText(
    'does not exist: replay answers from a recorded cassette and never creates one',
  );
  await app.screenshot(join(SHOTS, 'failed-proxy.png'));

  // the upstream comes back on its port: Retry makes the proxy run
  const back = await startSdkServer({ port });
  try {
    await down.getByRole('button', { name: 'Retry' }).click();
    await expect(down.getByText('running')).toBeVisible({ timeout: 15_000 });
    await expect(down.getByRole('alert')).toHaveCount(0);
  } finally {
    await back.close();
  }
  expect(problems).toEqual([]);
});

test('a paused call: a banner on every view with a countdown, a pending row in the table, Resume from the banner', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  const upstream = await startSdkServer();
  let mcp: ConnectedClient | undefined;
  try {
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'held', upstreamUrl: upstream.url });
    await expect(row.getByText('running')).toBeVisible();
    const endpoint = (await row.locator('code').textContent()) ?? '';
    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Breakpoints' });
    const add = drawer.getByRole('form', { name: 'Add breakpoint' });
    await add.getByLabel('Tool').fill('add');
    await add.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(drawer.getByRole('list', { name: 'Breakpoint list' })).toContainText('add');

    mcp = await connectClient(endpoint);
    const pending = mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    // the drawer's editor flags arguments that break the tool's input schema (a number given as a string, a missing b)
    const card = drawer.getByRole('article', { name: 'Paused add before request' });
    await expect(card).toBeVisible();
    await card.getByLabel('add arguments', { exact: true }).click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('{ "a": "two" }');
    await expect(card.getByRole('alert')).toContainText('a: must be number'); // the engine's check (ajv)
    await expect(card.getByRole('alert')).toContainText('b: required');
    await page.keyboard.press('ControlOrMeta+z');
    await drawer.getByRole('button', { name: 'Close breakpoints' }).click();

    // the held call is a pending row of the table
    const held = page.getByRole('table', { name: 'Recent exchanges' }).locator('tr.held');
    await expect(held).toContainText('add');
    await expect(held).toContainText('‖ held');

    // another view: the banner says which call, which proxy, and when it resumes by itself
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    const banner = page.getByRole('region', { name: 'Paused calls' });
    await expect(banner).toContainText('add held before request on held');
    await expect(banner).toContainText(/resumes unchanged in [0-5]:\d\d/);
    await app.screenshot(join(SHOTS, 'breakpoint-banner.png'));
    await banner.getByRole('button', { name: 'Resume add' }).click();
    const result = await pending;
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    await expect(banner).toHaveCount(0);

    // an edit at the breakpoint: the row is flagged, and the detail shows the original beside what went upstream
    const edited = mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    await banner.getByRole('button', { name: 'Open add' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
    const again = page
      .getByRole('complementary', { name: 'Breakpoints' })
      .getByRole('article', { name: 'Paused add before request' });
    await again.getByLabel('add arguments', { exact: true }).click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('{ "a": 20, "b": 3 }');
    await again.getByRole('button', { name: 'Resume' }).click();
    expect((await edited).content).toEqual([{ type: 'text', text: '23' }]);
    await page.getByRole('button', { name: 'Close breakpoints' }).click();
    const changed = page
      .getByRole('table', { name: 'Recent exchanges' })
      .getByRole('row')
      .filter({ hasText: 'arguments edited at a breakpoint' });
    await expect(changed).toContainText('✎ changed');
    await changed.click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await detail.getByRole('tab', { name: 'Changes' }).click();
    await expect(detail.getByLabel('Request: original', { exact: true })).toContainText('"a": 2,');
    await expect(detail.getByLabel('Request: as the client got it', { exact: true })).toContainText('"a": 20,');
    await app.screenshot(join(SHOTS, 'changes.png'));
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
  }
});

test('restart the UI process: proxies, rules and breakpoints come back', async ({ app }) => {
  test.setTimeout(60_000);
  const { page } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  const upstream = await startSdkServer();
  try {
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'kept', upstreamUrl: upstream.url });
    await expect(row.getByText('running')).toBeVisible();
    const endpoint = (await row.locator('code').textContent()) ?? '';
    // a rule: hide one tool (one action)
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByRole('button', { name: 'Hide counter' }).click();
    await page.getByRole('button', { name: /^Apply/ }).click();
    await expect(tools.getByTestId('tool-counter')).toContainText('hidden');
    // a breakpoint
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Timeline' }).click();
    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    const drawer = page.getByRole('complementary', { name: 'Breakpoints' });
    await drawer.getByRole('form', { name: 'Add breakpoint' }).getByLabel('Tool').fill('echo');
    await drawer.getByRole('button', { name: 'Add breakpoint' }).click();
    await expect(drawer.getByRole('list', { name: 'Breakpoint list' })).toContainText('echo');
    await drawer.getByRole('button', { name: 'Close breakpoints' }).click();

    await app.restart();
    await expect(page.getByRole('status')).toHaveText('connected', { timeout: 15_000 });
    const again = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy kept' });
    await expect(again.getByText('running')).toBeVisible({ timeout: 15_000 });
    await expect(again.locator('code')).toHaveText(endpoint); // the same port: client configs stay valid
    await expect(page.getByRole('button', { name: /^Breakpoints \(1\)/ })).toBeVisible();
    // the list may still show the old process's row for a moment after the reconnect: the port answers once the new
    // process has started its proxy again
    let mcp: Awaited<ReturnType<typeof connectClient>> | undefined;
    await expect
      .poll(async () => (mcp = await connectClient(endpoint).catch(() => undefined)) !== undefined, { timeout: 15_000 })
      .toBe(true);
    if (!mcp) throw new Error('unreachable');
    try {
      expect((await mcp.client.listTools()).tools.map((t) => t.name)).not.toContain('counter');
    } finally {
      await mcp.close();
    }
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    await expect(page.getByRole('region', { name: 'Tools' }).getByTestId('tool-counter')).toContainText('hidden');
  } finally {
    await upstream.close();
  }
});

test('a 5 MB result opens in the detail (loaded in full from the engine): a tree to search, copy and collapse', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  const items = Array.from({ length: 25_000 }, (_, i) => ({
    id: i,
    name: `item ${i}`,
    tags: ['alpha', 'beta'],
    payload: 'x'.repeat(150),
  }));
  const big = await startCustomUpstream(() => {
    const server = new Server({ name: 'big', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'big', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: 'text', text: `${items.length} items` }],
      structuredContent: { items },
    }));
    return server;
  });
  let mcp: ConnectedClient | undefined;
  try {
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'big', upstreamUrl: big.url });
    mcp = await connectClient((await row.locator('code').textContent()) ?? '');
    const result = await mcp.client.callTool({ name: 'big', arguments: {} });
    expect(JSON.stringify(result).length).toBeGreaterThan(5_000_000);
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await table.getByRole('row').filter({ hasText: 'big' }).filter({ hasText: 'tools/call' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    // the timeline keeps bodies over 256 kB truncated (its memory is capped by bytes): the detail loads it in full
    await detail
      .getByRole('note')
      .filter({ hasText: 'Large body truncated' })
      .getByRole('button', { name: 'Load full body' })
      .click();
    await expect(detail.getByRole('note').filter({ hasText: 'Showing the full exchange' })).toBeVisible();
    await detail.getByRole('tab', { name: 'Response' }).click();
    const tree = detail.getByRole('tree', { name: 'Response tree' });
    await expect(tree.getByRole('treeitem').filter({ hasText: /items: \[ 25000 items \]$/ })).toBeVisible();
    // only what is on screen is in the DOM
    expect(await tree.getByRole('treeitem').count()).toBeLessThan(200);
    const search = detail.getByLabel('Search in Response');
    await search.fill('item 24999');
    await expect(detail.getByTestId('json-hits')).toHaveText('1 of 1');
    await expect(tree.locator('.jt-row.selected')).toContainText('"item 24999"');
    await expect(tree.locator('.jt-row.selected')).toBeInViewport();
    await app.screenshot(join(SHOTS, 'big-result.png'));
    // copy the found value's path, and the value itself
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await detail.getByRole('button', { name: 'Copy path' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe('result.structuredContent.items[24999].name');
    await detail.getByRole('button', { name: 'Copy value' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('item 24999');
    await detail.getByRole('button', { name: 'Collapse all' }).click();
    await expect(tree.getByRole('treeitem')).toHaveCount(1);
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await big.close();
  }
});
