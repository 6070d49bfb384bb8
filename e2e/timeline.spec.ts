import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { expect, ROOT, test } from './shell.js';

// The Timeline view against the app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real Chromium, or the
// Electron app), with the real engine, a real SDK upstream and a real SDK client. No stubbed window APIs.

const count = async (locator: Locator): Promise<number> =>
  Number(/^\d+/.exec((await locator.textContent()) ?? '')?.[0] ?? NaN);

test('live exchanges of a real SDK client: rows, filters, detail with streamed progress, waterfall and histogram', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-timeline-cassette-'));
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Cassette folder').fill(cassette);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    const proxyRow = page
      .getByRole('list', { name: 'Proxy list' })
      .getByRole('listitem')
      .filter({ hasText: 'fixture' });
    await expect(proxyRow.getByText('running')).toBeVisible();
    const endpoint = (await proxyRow.locator('code').textContent()) ?? '';

    // the client config menu of the running proxy shows the URL-based snippets
    await proxyRow.getByText('Copy client config').click();
    await expect(proxyRow.locator('[data-config="cursor"] pre')).toHaveText(
      JSON.stringify({ mcpServers: { fixture: { url: endpoint } } }, null, 2),
    );
    await expect(proxyRow.locator('[data-config="vscode"] pre')).toContainText('"type": "http"');
    await expect(proxyRow.locator('[data-config="claude"] pre')).toContainText('mcp-remote');
    await proxyRow.getByText('Copy client config').click();

    mcp = await connectClient(endpoint);
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'from the timeline e2e' } });
    await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    let progressSeen = 0;
    await mcp.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: () => void progressSeen++,
    });
    expect(progressSeen).toBe(3);
    const unknown = await mcp.client.callTool({ name: 'no-such-tool', arguments: {} }).catch((e: Error) => e);

    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const calls = table.getByRole('row').filter({ hasText: 'tools/call' });
    await expect(calls).toHaveCount(4);
    const row = (tool: string): Locator => calls.filter({ has: page.getByRole('cell', { name: tool, exact: true }) });
    for (const tool of ['echo', 'add', 'progress']) {
      await expect(row(tool)).toHaveCount(1);
      // cells: #, time, proxy and session, method, tool, source, status, …
      await expect(row(tool).getByRole('cell').nth(6)).toHaveText('ok');
      await expect(row(tool).getByRole('cell').nth(2)).toHaveText(/^fixture [0-9a-f-]{4}$/); // the proxy, then its session
      await expect(row(tool).getByRole('cell').nth(5)).toHaveText('upstream');
    }
    // an unknown tool: the SDK server answers with a tool error (isError) or a JSON-RPC error, depending on its version
    const unknownStatus = (await row('no-such-tool').getByRole('cell').nth(6).textContent()) ?? '';
    expect(unknownStatus).toMatch(unknown instanceof Error ? /^error -32\d{3}$/ : /^tool error$/);
    await expect(table.getByRole('row').filter({ hasText: 'initialize' })).toHaveCount(1);

    const total = await count(page.getByTestId('traffic-count'));
    const filterCount = page.getByTestId('filter-count');
    await expect(filterCount).toHaveText(`${total} of ${total}`);

    // filter by tool
    const filters = page.getByRole('search', { name: 'Filter exchanges' });
    await filters.getByLabel('Tool').selectOption('add');
    await expect(filterCount).toHaveText(`1 of ${total}`);
    await expect(table.getByRole('row')).toHaveCount(2); // header + add
    await filters.getByLabel('Tool').selectOption('');
    // free text matches the JSON of the request: `/` focuses the search box
    await page.locator('body').press('/');
    await expect(filters.getByLabel('Search')).toBeFocused();
    await page.keyboard.type('from the timeline');
    await expect(filterCount).toHaveText(`1 of ${total}`);
    await expect(calls).toHaveCount(1);
    await expect(row('echo')).toHaveCount(1);
    await filters.getByRole('button', { name: 'Reset filters' }).click();
    await expect(filterCount).toHaveText(`${total} of ${total}`);

    // open the progress call: request arguments and the streamed messages, in order (the detail's tabs)
    await row('progress').click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    const tab = (name: RegExp | string): Locator => detail.getByRole('tab', { name });
    await tab('Request').click();
    const requestTree = detail.getByRole('tree', { name: 'Request tree' });
    await expect(requestTree.getByRole('treeitem').filter({ hasText: /^▸?▾?steps: 3$/ })).toHaveCount(1); // a JSON tree
    await expect(tab(/^Stream \(4\)$/)).toBeVisible();
    await tab(/^Stream/).click();
    const streamed = detail.getByRole('list', { name: 'Streamed messages' });
    for (let i = 1; i <= 3; i++)
      await expect(streamed.getByRole('listitem', { name: `#${i} notifications/progress` })).toContainText(
        `step ${i}/3`,
      );
    await expect(streamed.getByRole('listitem', { name: '#4 notifications/message' })).toContainText(
      'progress finished 3 steps',
    );
    await expect(streamed.getByRole('listitem').first()).toContainText(/\+\d+(\.\d)? ms/); // its time from the request
    await tab('Content').click();
    await expect(detail.getByRole('tabpanel')).toContainText('done 3');
    await tab('Overview').click();
    await expect(detail.getByRole('table', { name: 'Timing' })).toContainText('first byte from upstream');
    await expect(detail.getByRole('tabpanel')).toContainText('HTTP 200');
    await app.screenshot(join(ROOT, 'docs/screenshots/timeline.png'));

    // keyboard: ↑ moves the selection (the detail follows), Esc closes
    await page.getByTestId('timeline-scroll').focus();
    await page.keyboard.press('ArrowUp');
    await expect(table.locator('tr[aria-selected="true"]')).toContainText('add');
    await tab('Request').click();
    await expect(
      detail
        .getByRole('tree', { name: 'Request tree' })
        .getByRole('treeitem')
        .filter({ hasText: /^a: 2$/ }),
    ).toHaveCount(1);
    await page.getByTestId('timeline-scroll').focus();
    await page.keyboard.press('Escape');
    await expect(detail).toHaveCount(0);
    await page.keyboard.press('Enter');
    await expect(detail).toBeVisible();
    await page.keyboard.press('Escape');

    // waterfall: one bar per exchange of the filtered set; histogram: every answered exchange in one bucket
    const tabs = page.getByRole('tablist', { name: 'Timeline views' });
    await tabs.getByRole('tab', { name: 'Waterfall' }).click();
    await expect(page.getByTestId('waterfall-bar')).toHaveCount(total);
    await filters.getByLabel('Method').selectOption('tools/call');
    await expect(page.getByTestId('waterfall-bar')).toHaveCount(4);
    await filters.getByLabel('Method').selectOption('');
    await app.screenshot(join(ROOT, 'docs/screenshots/waterfall.png'));
    await tabs.getByRole('tab', { name: 'Histogram' }).click();
    const buckets = page.getByTestId('histogram-bucket');
    await expect(buckets.first()).toBeVisible();
    const counts = await buckets.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-count'))));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total); // every exchange is answered by now (no pending one)
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[counts.length - 1]).toBeGreaterThan(0);
    await app.screenshot(join(ROOT, 'docs/screenshots/histogram.png'));
    await tabs.getByRole('tab', { name: 'Table' }).click();
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});

test('Run demo: a newcomer sees live traffic within seconds', async ({ app }) => {
  const { page, problems } = app;
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  const before = await count(page.getByTestId('traffic-count'));
  await page.getByRole('button', { name: 'Run demo' }).click();
  const proxyRow = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'demo' });
  await expect(proxyRow.getByText('running')).toBeVisible({ timeout: 10_000 });
  await expect
    .poll(() => count(page.getByTestId('traffic-count')), { timeout: 15_000 })
    .toBeGreaterThanOrEqual(before + 5);
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  await expect(
    table.getByRole('row').filter({ hasText: 'tools/call' }).filter({ hasText: 'demo' }).first(),
  ).toBeVisible();
  expect(problems).toEqual([]);
});
