import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { newProxy, savedSettings } from './inspector-helpers.js';
import { ROOT, expect, test } from './shell.js';

// Issue 35 item 1: the proxies bar grows with its rows up to a limit, then scrolls; a drag of its edge is kept. Real
// proxies (replay, made through the New proxy dialog) in the browser shell; rows measured as laid out.

const SHOTS = join(ROOT, 'test-results', 'screenshots'); // inside the checkout (ignored), never beside it

/** rows of the list wholly inside it, and whether the list scrolls */
const layout = (list: Locator): Promise<{ whole: number; rows: number; scrolls: boolean; height: number }> =>
  list.evaluate((ul) => {
    const box = ul.getBoundingClientRect();
    const items = Array.from(ul.querySelectorAll(':scope > li'));
    const whole = items.filter((li) => {
      const r = li.getBoundingClientRect();
      return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    }).length;
    return { whole, rows: items.length, scrolls: ul.scrollHeight > ul.clientHeight + 1, height: box.height };
  });

async function proxies(page: Page, from: number, to: number, folder: string): Promise<void> {
  for (let i = from; i <= to; i++) {
    const dir = join(folder, `c${i}`);
    mkdirSync(dir, { recursive: true });
    await newProxy(page, { mode: 'replay', name: `replay-${i}`, cacheDir: dir });
  }
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('the proxies bar fits 4 proxies without cutting one, stops at a limit with more, and keeps a drag', async ({
  app,
}) => {
  test.setTimeout(180_000);
  const { page, problems, dataDir } = app;
  const folder = mkdtempSync(join(tmpdir(), 'rewind-e2e-barfit-'));
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await proxies(page, 1, 4, folder);
    const list = page.getByRole('list', { name: 'Proxy list' });
    await expect(list.getByText('running', { exact: true })).toHaveCount(4);
    // 4 proxies: every row whole, nothing to scroll (before: a fixed 120 px cut the 4th mid-line)
    await expect.poll(() => layout(list)).toMatchObject({ whole: 4, rows: 4, scrolls: false });
    await shoot(page, 'proxies-bar-4');

    // 12: the bar grows to its limit and scrolls; the traffic keeps most of the window
    await proxies(page, 5, 12, folder);
    await expect(list.getByText('running', { exact: true })).toHaveCount(12);
    const full = await layout(list);
    expect(full.scrolls).toBe(true);
    expect(full.whole).toBeGreaterThan(4);
    expect(full.whole).toBeLessThan(12);
    expect(full.height).toBeLessThanOrEqual(720 / 3 + 1);
    await shoot(page, 'proxies-bar-12');

    // a drag of its edge is kept (settings.json), and again after a reload
    const edge = page.getByRole('separator', { name: 'Resize the proxies bar' });
    const box = (await edge.boundingBox())!;
    await page.mouse.move(box.x + 100, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 100, box.y - 80, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => savedSettings(dataDir).proxiesBar?.height ?? 0).toBeGreaterThan(40);
    const kept = savedSettings(dataDir).proxiesBar!.height!;
    expect(kept).toBeLessThan(full.height - 60);
    await app.open();
    await expect(list.getByText('running', { exact: true })).toHaveCount(12);
    await expect.poll(async () => Math.round((await layout(list)).height)).toBe(Math.round(kept));
    // a double click on the edge: back to fitting its rows
    await edge.dblclick();
    await expect.poll(() => savedSettings(dataDir).proxiesBar?.height).toBeNull();
    await expect.poll(async () => (await layout(list)).whole).toBe(full.whole);
    expect(problems).toEqual([]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
