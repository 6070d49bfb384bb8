import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer } from '../test/fixtures/sdk-server.js';
import { startCustomUpstream } from '../test/helpers/custom-upstream.js';
import { newProxy, openFile, savedSettings, writeHar } from './inspector-helpers.js';
import { count, rowsInView } from './layout.js';
import { expect, ROOT, test } from './shell.js';

// The defects a demanding user hit (issue 25, items 4, 6, 10, 13), each against the app as a user starts it: the
// proxies bar, the Content tab on a 5 MB text, opening a HAR, the Rules view (contrast, a draft kept), names with a
// bidi control, the app's own traffic, Preserve log across a restart, and what the user guide says of the demo.

async function runDemo(page: Page, runs = 1): Promise<void> {
  const before = await count(page.getByTestId('traffic-count'));
  for (let run = 1; run <= runs; run++) {
    await page.getByRole('button', { name: 'Run demo' }).click();
    await expect
      .poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(before + 7 * run);
  }
}

test('the proxies bar: a failure is shown first and in view, the bar resizes (kept), and collapses to a summary', async ({
  app,
}) => {
  test.setTimeout(150_000);
  const { page, problems, dataDir } = app;
  const folders = Array.from({ length: 8 }, () => mkdtempSync(join(tmpdir(), 'rewind-e2e-bar-')));
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    for (const [i, folder] of folders.entries())
      await newProxy(page, { mode: 'replay', name: `replay-${i + 1}`, cacheDir: folder });
    const list = page.getByRole('list', { name: 'Proxy list' });
    await expect(list.getByText('running', { exact: true })).toHaveCount(8);
    // a ninth that cannot start: listed first, in view once the dialog is gone
    const failed = await newProxy(page, {
      mode: 'replay',
      name: 'broken',
      cacheDir: join(folders[0], 'no-such-folder'),
    });
    await expect(failed.getByText('cassette missing')).toBeVisible();
    await expect(list.getByRole('listitem').first()).toHaveAttribute('aria-label', 'Proxy broken');
    await expect(failed).toBeInViewport();

    // the bar's lower edge: dragged down, more proxies are in view; its height is kept in the settings
    const visible = (): Promise<number> =>
      list.evaluate((ul) => {
        const box = ul.getBoundingClientRect();
        return Array.from(ul.querySelectorAll('li')).filter((li) => {
          const r = li.getBoundingClientRect();
          return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        }).length;
      });
    const few = await visible();
    expect(few).toBeLessThan(9);
    const edge = page.getByRole('separator', { name: 'Resize the proxies bar' });
    const box = (await edge.boundingBox())!;
    await page.mouse.move(box.x + 100, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 100, box.y + 200, { steps: 5 });
    await page.mouse.up();
    await expect.poll(visible).toBe(9); // every row (it fitted 8 before the drag: its limit at 720 px)
    await expect.poll(() => savedSettings(dataDir).proxiesBar?.height ?? 0).toBeGreaterThan(250);
    // from the keyboard too
    const height = Number(await edge.getAttribute('aria-valuenow'));
    await edge.focus();
    await page.keyboard.press('ArrowUp');
    await expect(edge).toHaveAttribute('aria-valuenow', String(height - 24));

    // collapsed: one line says what is there
    await page.getByRole('button', { name: /Proxies/, expanded: true }).click();
    await expect(page.getByTestId('proxies-summary')).toHaveText('9 proxies, 8 running, 1 failed');
    await expect(list).toHaveCount(0);
    await expect.poll(() => savedSettings(dataDir).proxiesBar?.collapsed).toBe(true);
    await page.getByRole('button', { name: /Proxies/, expanded: false }).click();
    await expect(list).toBeVisible();
    expect(problems).toEqual([]);
  } finally {
    for (const f of folders) rmSync(f, { recursive: true, force: true });
  }
});

test('a 5 MB text in the Content tab: the first 100,000 characters, then more on demand (its size said)', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const text = 'line of text, '.repeat(400_000); // 5.6 MB
  const big = await startCustomUpstream(() => {
    const server = new Server({ name: 'big', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'bigtext', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text }] }));
    return server;
  });
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'big', upstreamUrl: big.url });
    mcp = await connectClient((await row.locator('code').textContent()) ?? '');
    await mcp.client.callTool({ name: 'bigtext', arguments: {} });
    await page.getByRole('table', { name: 'Recent exchanges' }).getByRole('row').filter({ hasText: 'bigtext' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await detail
      .getByRole('note')
      .filter({ hasText: 'Large body truncated' })
      .getByRole('button', { name: 'Load full body' })
      .click();
    await expect(detail.getByRole('note').filter({ hasText: 'Showing the full exchange' })).toBeVisible();
    await detail.getByRole('tab', { name: 'Content' }).click();
    const block = detail.locator('.text-block');
    await expect(block).toHaveCount(1);
    expect((await block.textContent())?.length).toBe(100_000);
    await expect(
      detail
        .getByRole('note')
        .filter({ hasText: `Showing the first 100,000 of ${text.length.toLocaleString('en')} characters` }),
    ).toBeVisible();
    await detail.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(async () => (await block.textContent())?.length).toBe(400_000);
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await big.close();
  }
});

test('opening a 22-entry HAR fetches its exchanges only, not the whole traffic again', async ({ app }) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-har-'));
  try {
    const snapshots: unknown[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', ({ payload }) => {
        const frame = JSON.parse(String(payload)) as { command?: string; input?: unknown };
        if (frame.command === 'traffic.page') snapshots.push(frame.input);
      }),
    );
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await runDemo(page);
    const before = await count(page.getByTestId('traffic-count'));
    const har = join(dir, 'agent.har');
    writeHar(
      har,
      Array.from({ length: 22 }, (_, i) => ({
        tool: 'search',
        text: `result ${i}`,
        ms: 12,
        at: Date.now() - 60_000 + i * 100,
      })),
    );
    snapshots.length = 0;
    const file = await openFile(page, har, 'agent.har');
    await expect(file).toBeVisible();
    await expect.poll(() => count(page.getByTestId('traffic-count'))).toBe(before + 22);
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({ proxyId: expect.any(String) });
    // closing it takes its exchanges out, without a reload either
    await file.getByRole('button', { name: 'Close agent.har' }).click();
    await expect.poll(() => count(page.getByTestId('traffic-count'))).toBe(before);
    expect(snapshots).toHaveLength(1);
    expect(problems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Rules view: no contrast failure in the light theme, and an unapplied draft stays with its proxy across switches', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const upstream = await startSdkServer();
  try {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await newProxy(page, { mode: 'proxy-only', name: 'one', upstreamUrl: upstream.url });
    await newProxy(page, { mode: 'proxy-only', name: 'two', upstreamUrl: upstream.url });
    const nav = page.getByRole('navigation', { name: 'Views' });
    await nav.getByRole('button', { name: 'Rules' }).click();
    const picker = page.locator('.rules-top select');
    await picker.selectOption({ label: 'one (running)' });
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByTestId('tool-echo').click();
    await page.getByRole('radio', { name: 'inject' }).check();
    await page.getByLabel('Template').fill('DRAFT {original_text}');
    const json = page.getByTestId('rules-json');
    await expect(json).toContainText('DRAFT {original_text}');
    // the tool now has a rule: its badge passes axe's contrast check
    const { violations } = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
    expect(violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.any[0]?.message ?? ''}`))).toEqual(
      [],
    );

    // another proxy, another view, back: the draft of "one" is there, unapplied
    await picker.selectOption({ label: 'two (running)' });
    await expect(json).not.toContainText('DRAFT');
    await nav.getByRole('button', { name: 'Timeline' }).click();
    await nav.getByRole('button', { name: 'Rules' }).click();
    await picker.selectOption({ label: 'one (running)' });
    await expect(json).toContainText('DRAFT {original_text}');
    await expect(page.getByText('unapplied changes')).toBeVisible();
    await expect(page.getByLabel('Template')).toHaveValue('DRAFT {original_text}');
    expect(problems).toEqual([]);
  } finally {
    await upstream.close();
  }
});

test('a tool named evil\\u202Egnp.exe shows its bidi control, in the table, the filter, the detail, Compose and Rules', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const evil = 'evil\u202Egnp.exe';
  const up = await startCustomUpstream(() => {
    const server = new Server({ name: 'evil', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: evil, inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'ran' }] }));
    return server;
  });
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'evil', upstreamUrl: up.url });
    mcp = await connectClient((await row.locator('code').textContent()) ?? '');
    await mcp.client.callTool({ name: evil, arguments: {} });
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const call = table.getByRole('row').filter({ hasText: 'tools/call' });
    const shown = 'evilU+202Egnp.exe';
    await expect(call.locator('td', { hasText: shown })).toHaveCount(1);
    await expect(call.locator('.hidden-char')).toHaveAttribute('title', 'U+202E RIGHT-TO-LEFT OVERRIDE');
    await expect(
      page
        .getByRole('search', { name: 'Filter exchanges' })
        .getByLabel('Tool')
        .locator('option', { hasText: 'evil⟨U+202E⟩gnp.exe' }),
    ).toHaveCount(1);
    await call.click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail.locator('.tl-detail-title')).toContainText(shown);
    await expect(detail.getByRole('tabpanel')).toContainText(shown);
    await page.getByRole('button', { name: 'Compose a call through evil' }).click();
    const compose = page.getByRole('complementary', { name: 'Compose' });
    await expect(compose.getByLabel('Tool').locator('option')).toHaveText(['evil⟨U+202E⟩gnp.exe']);
    await compose.getByRole('button', { name: 'Close compose' }).click();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    await expect(page.getByRole('region', { name: 'Tools' }).locator('.tool-name')).toHaveText(shown);
    await page.getByRole('region', { name: 'Tools' }).locator('.tool-pick').first().click();
    await expect(page.locator('.rule-editor h2')).toHaveText(shown);
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await up.close();
  }
});

test("the app's own traffic (Compose's lists) is hidden by default, and shows when asked", async ({ app }) => {
  test.setTimeout(90_000);
  const { page, problems, dataDir } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await runDemo(page);
  await page.getByRole('button', { name: 'Compose a call through demo' }).click();
  const compose = page.getByRole('complementary', { name: 'Compose' });
  await expect(compose.getByLabel('Tool')).toBeVisible({ timeout: 15_000 });
  await compose.getByRole('button', { name: 'Close compose' }).click();
  const total = await count(page.getByTestId('traffic-count'));
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  const own = table.locator('tbody tr.tl-row').filter({ has: page.locator('.session.app') });
  // the engine has them (the count of the timeline), the table does not show them
  await expect.poll(() => page.getByTestId('filter-count').textContent()).toMatch(new RegExp(`^\\d+ of ${total}$`));
  const shown = Number(/^(\d+)/.exec((await page.getByTestId('filter-count').textContent()) ?? '')?.[1]);
  expect(shown).toBeLessThan(total);
  await expect(own).toHaveCount(0);
  await page.getByLabel('Hide app traffic').uncheck();
  await expect(own).toHaveCount(total - shown);
  await expect(page.getByTestId('filter-count')).toHaveText(`${total} of ${total}`);
  await expect.poll(() => savedSettings(dataDir).hideAppTraffic).toBe(false);
  expect(problems).toEqual([]);
});

test('Preserve log keeps the timeline across a restart of the UI; without it only pinned exchanges come back', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems, dataDir } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await runDemo(page);
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  // off (the default): a restart keeps the pinned one only
  await table.getByRole('row').filter({ hasText: 'logo' }).click();
  await page.getByRole('complementary', { name: 'Exchange detail' }).getByRole('button', { name: '☆ Pin' }).click();
  await app.restart();
  await page.reload();
  await expect.poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 }).toBe(1);
  // on: the whole timeline comes back, numbered as it was
  await runDemo(page);
  await page.getByLabel('Preserve log').check();
  await expect.poll(() => savedSettings(dataDir).preserveLog).toBe(true);
  const numbers = await table.locator('tbody tr.tl-row td:first-child').allTextContents();
  const before = await count(page.getByTestId('traffic-count'));
  await app.restart();
  await page.reload();
  await expect.poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 }).toBe(before);
  expect(await table.locator('tbody tr.tl-row td:first-child').allTextContents()).toEqual(numbers);
  await expect(page.getByLabel('Preserve log')).toBeChecked();
  // while the UI process is down, the page's reconnect attempts are refused: that is all the console may say
  expect(problems.filter((p) => !p.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
});

test('what the user guide says of the demo and the window is what the app does', async ({ app }) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const guide = readFileSync(join(ROOT, 'docs/user-guide.md'), 'utf8').replace(/\s+/g, ' ');
  const perRun = Number(
    /the demo's agent makes (\d+) exchanges each time \*\*Run demo\*\* is pressed/.exec(guide)?.[1],
  );
  const claim = /at 1280×720 the table shows at least (\d+) rows at once after (\w+) runs of the demo/.exec(guide);
  expect(perRun).toBeGreaterThan(0);
  expect(claim).not.toBeNull();
  const rows = Number(claim![1]);
  const runs = { one: 1, two: 2, three: 3, four: 4 }[claim![2]] ?? NaN;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  for (let run = 1; run <= runs; run++) {
    await page.getByRole('button', { name: 'Run demo' }).click();
    await expect.poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 }).toBe(perRun * run);
  }
  // the newest row in sight (the table follows it), and at least the rows the guide says, whole, below the header
  await expect.poll(() => rowsInView(page)).toBeGreaterThanOrEqual(rows);
  expect(rows).toBeLessThan(perRun * runs); // "the window fills": more exchanges than rows
  expect(problems).toEqual([]);
});
