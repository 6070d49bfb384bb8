import type { Locator, Page } from '@playwright/test';
import { join } from 'node:path';
import { count, rowsInView } from './layout.js';
import { expect, ROOT, test } from './shell.js';

// The table beside an open detail (issue 25, layout): at 1280×720 and 1440×900 with the demo's traffic and a row open,
// the columns left are whole (no cell cut with "…"), the detail's tabs sit on one line, and its actions on one line
// (the rest in a "More actions" menu). Screenshots go to test-results/ for a person to look at.

const SHOTS = join(ROOT, 'test-results');

async function runDemo(page: Page, runs: number): Promise<void> {
  for (let run = 1; run <= runs; run++) {
    await page.getByRole('button', { name: 'Run demo' }).click();
    await expect
      .poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(7 * run);
  }
}

/** the distinct top offsets of a set of elements: 1 when they sit on one line */
async function lines(locator: Locator): Promise<number> {
  const tops = await locator.evaluateAll((els) =>
    els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => Math.round(e.getBoundingClientRect().top)),
  );
  return new Set(tops).size;
}

/** cells and header cells whose text is cut with an ellipsis (wider than their box) */
async function cutCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    for (const cell of Array.from(document.querySelectorAll('tr.tl-row td, .tl-table thead th')) as HTMLElement[]) {
      for (const el of [cell, ...(Array.from(cell.querySelectorAll('*')) as HTMLElement[])])
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).textOverflow === 'ellipsis') {
          cut.push(`${cell.dataset.col ?? cell.tagName}: ${cell.textContent ?? ''}`);
          break;
        }
    }
    return cut;
  });
}

for (const size of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
]) {
  test(`with a row open at ${size.width}×${size.height}: whole columns, tabs and actions on one line each`, async ({
    app,
  }) => {
    test.setTimeout(90_000);
    const { page, problems } = app;
    await page.setViewportSize(size);
    await app.open();
    await runDemo(page, 3);
    const rows = { closed: await rowsInView(page) };
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await table.getByRole('row').filter({ hasText: 'tools/call' }).first().click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail.getByRole('tab', { name: 'Overview' })).toBeVisible();
    await page.screenshot({ path: join(SHOTS, `detail-layout-${size.width}.png`) });
    // the table fits its pane: no column pushed out of sight to the right
    const fits = await page.getByTestId('timeline-scroll').evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
    expect(fits).toBe(true);
    test.info().annotations.push({
      type: 'rows in view after three demo runs',
      description: `${rows.closed} with the detail closed, ${await rowsInView(page)} with a row open`,
    });
    expect(await lines(detail.getByRole('tab'))).toBe(1);
    expect(await lines(detail.getByRole('toolbar', { name: 'Exchange actions' }).locator(':scope > *'))).toBe(1);
    expect(await cutCells(page)).toEqual([]);

    // a detail under 400 px (the separator, by keyboard): Compare, Pin and Note go into "More", the tabs scroll in one line
    await page.getByRole('separator', { name: 'Resize the table and the detail' }).focus();
    while ((await detail.boundingBox())!.width > 400) await page.keyboard.press('ArrowRight');
    const actions = detail.getByRole('toolbar', { name: 'Exchange actions' });
    await actions.getByRole('button', { name: 'More ▾' }).click();
    await page.getByRole('menu', { name: 'More actions' }).getByRole('menuitem', { name: '⇄ Compare…' }).click();
    const diff = detail.getByRole('tab', { name: 'Diff' });
    await expect(diff).toHaveAttribute('aria-selected', 'true');
    const list = (await detail.getByRole('tablist').boundingBox())!;
    const tab = (await diff.boundingBox())!;
    expect(tab.x + tab.width).toBeLessThanOrEqual(list.x + list.width + 1); // scrolled into view
    expect(await lines(detail.getByRole('tab'))).toBe(1);
    expect(await lines(actions.locator(':scope > *'))).toBe(1);
    await page.screenshot({ path: join(SHOTS, `detail-layout-narrow-${size.width}.png`) });
    expect(problems).toEqual([]);
  });
}
