import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { newProxy, openFile, shownCount, writeHar } from './inspector-helpers.js';
import { expect, ROOT, test } from './shell.js';

// The filter language (issue 25, item 7) against the app as a user starts it: a real SDK upstream and client through a
// recording proxy, the query typed into the search box with its completion, the URL carrying the filter, a histogram
// bucket and a waterfall span filtering, and a waterfall over more exchanges than the old 2,000-bar cap.

const SHOTS = join(ROOT, 'docs/screenshots');

/** types a query (replacing the box's text) and waits for the debounced filter to apply */
async function query(page: Page, text: string, expected: number): Promise<void> {
  const box = page.getByLabel('Search');
  await box.fill(text);
  await box.blur(); // closes the completion list (the box keeps the text)
  await expect.poll(() => shownCount(page)).toBe(expected);
}

test('the query language: completion, keys, negation, regex, quoted text, problems, the URL, a histogram bucket', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-filter-'));
  let mcp: ConnectedClient | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    const proxy = await newProxy(page, { mode: 'record', name: 'q', upstreamUrl: upstream.url, cacheDir: cassette });
    await expect(proxy.getByText('running')).toBeVisible();
    mcp = await connectClient((await proxy.locator('code').textContent()) ?? '');
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'alpha one' } });
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'beta two' } });
    await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    await mcp.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
    await mcp.client.callTool({ name: 'fail', arguments: {} });
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(table.getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(5);
    const total = Number(/of (\d+)/.exec((await page.getByTestId('filter-count').textContent()) ?? '')?.[1]);

    // completion: a key from two letters, then the values of that key
    await page.locator('body').press('/');
    const box = page.getByLabel('Search');
    await expect(box).toBeFocused();
    await page.keyboard.type('st');
    const list = page.getByRole('listbox', { name: 'Filter completions' });
    await expect(list.getByRole('option', { name: /^status:/ })).toBeVisible();
    await expect(box).toHaveAttribute('aria-expanded', 'true');
    await app.screenshot(join(SHOTS, 'filter-completion-1280.png'));
    await page.keyboard.press('Enter');
    await expect(box).toHaveValue('status:');
    await expect(list.getByRole('option', { name: /^tool-error/ })).toBeVisible();
    await list.getByRole('option', { name: /^tool-error/ }).click();
    await expect(box).toHaveValue('status:tool-error ');
    await expect.poll(() => shownCount(page)).toBe(1);
    await expect(table.getByRole('row').filter({ hasText: 'fail' })).toHaveCount(1);
    // the values seen in the traffic: tools
    await box.fill('');
    await page.keyboard.type('tool:ec');
    await expect(list.getByRole('option', { name: /^echo/ })).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(box).toHaveValue('tool:echo ');
    await expect.poll(() => shownCount(page)).toBe(2);

    // keys, comma = any of, negation, regex, quoted text, comparisons, has:
    await query(page, 'tool:echo,add', 3);
    await query(page, 'method:tools/call -tool:echo', 3);
    await query(page, 'has:stream', 1);
    await query(page, '/alpha|beta/', 2);
    await query(page, '"beta two"', 1);
    await query(page, 'tool:add duration>=0 larger-than:10', 1);
    await query(page, 'larger-than:100k', 0);
    await query(page, 'source:upstream -status:ok', 1);
    // a problem is said beside the box, and the term is left out
    await page.getByLabel('Search').fill('tool:echo status:bogus');
    await expect(page.getByText(/status:bogus — expected ok, error/)).toBeVisible();
    await expect(page.getByLabel('Search')).toHaveAttribute('aria-invalid', 'true');
    await expect.poll(() => shownCount(page)).toBe(2);

    // the URL carries the filter: a reload and a link (signed in anew) reopen the same view
    await query(page, 'tool:echo,add', 3);
    await expect.poll(() => new URL(page.url()).hash).toBe('#/timeline?q=tool%3Aecho%2Cadd');
    await page.reload();
    await expect(page.getByLabel('Search')).toHaveValue('tool:echo,add');
    await expect.poll(() => shownCount(page)).toBe(3);
    await app.open('#/timeline?q=has%3Astream&method=tools%2Fcall');
    await expect(page.getByLabel('Search')).toHaveValue('has:stream');
    await expect(page.getByRole('search', { name: 'Filter exchanges' }).getByLabel('Method')).toHaveValue('tools/call');
    await expect.poll(() => shownCount(page)).toBe(1);
    await page.getByRole('button', { name: 'Reset filters' }).click();
    await expect.poll(() => shownCount(page)).toBe(total);
    await expect.poll(() => new URL(page.url()).hash).toBe('#/timeline');

    // a histogram bucket filters to its durations
    await page.getByRole('tablist', { name: 'Timeline views' }).getByRole('tab', { name: 'Histogram' }).click();
    const bucket = page.getByTestId('histogram-bucket').first();
    const inBucket = Number(await bucket.getAttribute('data-count'));
    await bucket.click();
    await expect(page.getByLabel('Search')).toHaveValue(/duration/);
    await expect.poll(() => shownCount(page)).toBe(inBucket);
    await expect(page.getByTestId('histogram-bucket')).toHaveCount(1);

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('tablist', { name: 'Timeline views' }).getByRole('tab', { name: 'Table' }).click();
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').focus();
    await page.keyboard.type('-has:');
    await expect(list.getByRole('option', { name: /^stream/ })).toBeVisible();
    await expect(page.getByTestId('filter-count')).toHaveText(`${total} of ${total}`); // a key still being typed filters nothing
    await app.screenshot(join(SHOTS, 'filter-completion-1440.png'));
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});

test('the waterfall covers every exchange (virtualised: a bounded DOM), and a span dragged on it filters to it', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-waterfall-'));
  try {
    const n = 2_500;
    const t0 = Date.UTC(2026, 0, 5, 9, 0, 0);
    const har = join(dir, 'many.har');
    writeHar(
      har,
      Array.from({ length: n }, (_, i) => ({
        tool: `tool-${i % 7}`,
        text: `answer ${i}`,
        ms: 5 + (i % 40),
        at: t0 + i * 10,
      })),
    );
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await openFile(page, har, 'many.har');
    await expect.poll(() => shownCount(page)).toBe(n);
    await page.getByRole('tablist', { name: 'Timeline views' }).getByRole('tab', { name: 'Waterfall' }).click();
    const chart = page.getByRole('figure', { name: 'Waterfall' });
    await expect(chart.locator('figcaption')).toContainText(`${n} exchanges`);
    // only the lines in view are drawn, however many there are; the first and the last exchange are both there
    const bars = page.getByTestId('waterfall-bar');
    expect(await bars.count()).toBeLessThan(100);
    const seqsInView = async (): Promise<number[]> =>
      (await page.locator('.tl-wf-label').allTextContents()).map((l) => Number(/#(\d+)/.exec(l)?.[1]));
    const top = await seqsInView();
    await page.getByTestId('waterfall-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(async () => Math.max(...(await seqsInView()))).toBe(Math.min(...top) + n - 1);
    expect(await bars.count()).toBeLessThan(100);

    // drag across the first half of the overview: the filter takes that span (after:/before:)
    const strip = page.getByRole('img', { name: /Exchanges over time/ });
    const box = (await strip.boundingBox())!;
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect(page.getByLabel('Search')).toHaveValue(/^after:\d\d:\d\d:\d\d\.\d{3} before:\d\d:\d\d:\d\d\.\d{3}$/);
    await expect.poll(() => shownCount(page)).toBeLessThan(n);
    const inSpan = await shownCount(page);
    expect(inSpan).toBeGreaterThan(n * 0.4);
    expect(inSpan).toBeLessThan(n * 0.6);
    await expect(chart.locator('figcaption')).toContainText(`${inSpan} exchanges`);
    expect(problems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
