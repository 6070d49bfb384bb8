import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { openFile, savedSettings, shownCount, writeHar } from './inspector-helpers.js';
import { expect, ROOT, test } from './shell.js';

// The table (issue 25, items 3, 8, 9) against the app as a user starts it: a HAR of 10,000 exchanges opened into
// the timeline (five-digit numbers), the # column with the detail open, sorting, the column menu, moving and resizing
// columns (kept in settings.json), the Size and Revision columns, and multi-select with its bulk verbs.

const SHOTS = join(ROOT, 'docs/screenshots');
const N = 10_000;

const headers = async (table: Locator): Promise<string[]> =>
  (await table.locator('thead th').allTextContents()).map((t) => t.replace(/ [▲▼]$/, '').trim());

/** whether the cell's text is cut (an ellipsis) */
const isCut = (cell: Locator): Promise<boolean> => cell.evaluate((td) => td.scrollWidth > td.clientWidth + 1);

async function openMany(page: Page, dir: string): Promise<void> {
  const har = join(dir, 'many.har');
  const t0 = Date.UTC(2026, 0, 5, 9, 0, 0);
  writeHar(
    har,
    Array.from({ length: N }, (_, i) => ({
      tool: `tool-${i % 7}`,
      text: 'x'.repeat(i % 300),
      ms: (i * 37) % 900,
      at: t0 + i * 10,
    })),
  );
  await openFile(page, har, 'many.har');
  await expect.poll(() => shownCount(page), { timeout: 20_000 }).toBe(N);
}

test('five-digit numbers are never cut; sort, hide, show, move and resize columns, kept in the settings', async ({
  app,
}) => {
  test.setTimeout(150_000);
  const { page, problems, dataDir } = app;
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-table-'));
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await openMany(page, dir);
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const scroller = page.getByTestId('timeline-scroll');

    // the newest exchange, pinned, with the detail open: its # reads whole at 1280, 1440 and 1920 wide
    await scroller.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await detail.getByRole('button', { name: '☆ Pin' }).click();
    const selected = table.locator('tr[aria-selected="true"]');
    const seqCell = selected.locator('td').first();
    await expect(seqCell).toHaveText(/^★\d{5}$/);
    for (const width of [1280, 1440, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      await expect(seqCell).toBeVisible();
      await expect.poll(() => isCut(seqCell)).toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    await detail.getByRole('button', { name: 'Close detail' }).click();

    // sort by duration: a header click (aria-sort), again the other way, a third time back to request order
    const ms = table.locator('thead th', { hasText: /^ms/ });
    await ms.getByRole('button').click();
    await expect(ms).toHaveAttribute('aria-sort', 'ascending');
    await scroller.evaluate((el) => (el.scrollTop = 0));
    const msAt = (await headers(table)).indexOf('ms');
    const durations = async (): Promise<number[]> =>
      (
        await table
          .locator('tbody tr.tl-row')
          .evaluateAll((rows, at) => rows.map((r) => r.querySelectorAll('td')[at]?.textContent ?? ''), msAt)
      ).map(Number);
    const up = await durations();
    expect(up.length).toBeGreaterThan(5);
    expect(new Set(up).size).toBeGreaterThan(1); // real durations, not an empty column read as zeros
    expect(up).toEqual([...up].sort((a, b) => a - b));
    await ms.getByRole('button').click();
    await expect(ms).toHaveAttribute('aria-sort', 'descending');
    await scroller.evaluate((el) => (el.scrollTop = 0));
    const down = await durations();
    expect(down).toEqual([...down].sort((a, b) => b - a));
    await expect.poll(() => savedSettings(dataDir).timelineColumns?.sort).toEqual({ column: 'duration', desc: true });
    await ms.getByRole('button').click();
    await expect(ms).toHaveAttribute('aria-sort', 'none');
    await expect.poll(() => savedSettings(dataDir).timelineColumns?.sort).toBeNull();

    // the column menu from a header's context menu: hide Source, show Revision, move Tool left
    await table.locator('thead th', { hasText: /^Tool/ }).click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Columns' });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('menuitemcheckbox', { name: /Time/ })).toBeFocused(); // the first item that can change (# always shows)
    await app.screenshot(join(SHOTS, 'column-menu-1280.png'));
    await menu.getByRole('menuitemcheckbox', { name: /Source/ }).click();
    await menu.getByRole('menuitemcheckbox', { name: /Revision/ }).click();
    await expect(menu.getByRole('menuitemcheckbox', { name: /Revision/ })).toHaveAttribute('aria-checked', 'true');
    await menu.getByRole('menuitem', { name: 'Move Tool left' }).click();
    await expect(menu).toBeHidden();
    expect(await headers(table)).toEqual([
      '#',
      'Time',
      'Proxy',
      'Tool',
      'Method',
      'Status',
      '⚠',
      'tok',
      'ms',
      'Size',
      'Revision',
      'Flags',
    ]);
    await expect.poll(() => savedSettings(dataDir).timelineColumns?.hidden).toEqual(['source']);
    expect(savedSettings(dataDir).timelineColumns?.order.slice(0, 5)).toEqual([
      'seq',
      'time',
      'proxy',
      'tool',
      'method',
    ]);
    // the Size column: request / answer bytes
    const sizeAt = (await headers(table)).indexOf('Size');
    await expect(table.locator('tbody tr.tl-row').first().locator('td').nth(sizeAt)).toHaveText(
      /^\d+ B \/ \d+(\.\d)? k?B$/,
    );

    // from the keyboard: the header is one Tab stop, ←/→ between columns, Ctrl+Shift+→ moves one
    await table.locator('thead th', { hasText: /^Time/ }).getByRole('button').focus();
    await page.keyboard.press('Control+Shift+ArrowRight');
    await expect
      .poll(() => headers(table))
      .toEqual(['#', 'Proxy', 'Time', 'Tool', 'Method', 'Status', '⚠', 'tok', 'ms', 'Size', 'Revision', 'Flags']);
    await page.keyboard.press('ArrowRight');
    await expect(table.locator('thead th', { hasText: /^Tool/ }).getByRole('button')).toBeFocused();

    // resize: a drag of the Tool header's right edge widens it; the width is kept
    const tool = table.locator('thead th', { hasText: /^Tool/ });
    const before = (await tool.boundingBox())!.width;
    const edge = (await tool.locator('.th-resize').boundingBox())!;
    await page.mouse.move(edge.x + edge.width / 2, edge.y + edge.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge.x + edge.width / 2 + 60, edge.y + edge.height / 2, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await tool.boundingBox())!.width - before).toBeGreaterThan(50);
    await expect.poll(() => savedSettings(dataDir).timelineColumns?.widths.tool ?? 0).toBeGreaterThan(before + 40);

    // a restart of the page: the columns come back as they were left
    await page.reload();
    await expect(table.locator('tbody tr.tl-row').first()).toBeVisible({ timeout: 20_000 });
    expect(await headers(table)).toEqual([
      '#',
      'Proxy',
      'Time',
      'Tool',
      'Method',
      'Status',
      '⚠',
      'tok',
      'ms',
      'Size',
      'Revision',
      'Flags',
    ]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await table.locator('thead th', { hasText: /^Method/ }).click({ button: 'right' });
    await expect(menu).toBeVisible();
    await app.screenshot(join(SHOTS, 'column-menu-1440.png'));
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    expect(problems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('multi-select: Shift/Ctrl-click and Shift+arrows; save, compare, remove (undoable), pin and note the picked ones', async ({
  app,
}) => {
  test.setTimeout(150_000);
  const { page, problems } = app;
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-pick-'));
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    const har = join(dir, 'some.har');
    const t0 = Date.UTC(2026, 0, 5, 9, 0, 0);
    writeHar(
      har,
      Array.from({ length: 30 }, (_, i) => ({
        tool: `tool-${i % 3}`,
        text: `answer ${i}`,
        ms: 10 + i,
        at: t0 + i * 100,
      })),
    );
    await openFile(page, har, 'some.har');
    await expect.poll(() => shownCount(page)).toBe(30);
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const rows = table.locator('tbody tr.tl-row');
    const bulk = page.getByRole('toolbar', { name: 'Picked exchanges' });
    const picked = table.locator('tbody tr[aria-selected="true"]');

    // a click, a Shift-click: the range; a Ctrl-click takes one out
    await page.getByTestId('timeline-scroll').evaluate((el) => (el.scrollTop = 0));
    await rows.nth(1).click();
    await rows.nth(4).click({ modifiers: ['Shift'] });
    await expect(bulk.getByTestId('picked-count')).toHaveText('4 picked');
    await expect(picked).toHaveCount(4);
    await rows.nth(2).click({ modifiers: ['Control'] });
    await expect(bulk.getByTestId('picked-count')).toHaveText('3 picked');
    // Shift+arrows grow the range from the row clicked
    await rows.nth(0).click();
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await expect(bulk.getByTestId('picked-count')).toHaveText('4 picked');
    await app.screenshot(join(SHOTS, 'multi-select-1280.png'));

    // Save…: the picked ones, as HAR
    await bulk.getByRole('button', { name: 'Save…' }).click();
    const save = page.getByRole('form', { name: 'Save exchanges' });
    await expect(save.getByRole('radio', { name: /The picked ones \(4\)/ })).toBeChecked();
    const out = join(dir, 'picked.har');
    await save.locator('#save-out').fill(out);
    await save.getByRole('button', { name: 'Save' }).click();
    await expect(save.getByRole('status')).toContainText('Saved 4 exchanges');
    await save.getByRole('button', { name: 'Close' }).click();
    expect((JSON.parse(readFileSync(out, 'utf8')) as { log: { entries: unknown[] } }).log.entries).toHaveLength(4);

    // Remove from view, then Undo
    await expect(bulk.getByRole('button', { name: '⇄ Compare' })).toBeDisabled();
    await bulk.getByRole('button', { name: 'Remove from view' }).click();
    await expect.poll(() => shownCount(page)).toBe(26);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => shownCount(page)).toBe(30);

    // two picked: Compare shows their Diff
    await page.getByTestId('timeline-scroll').evaluate((el) => (el.scrollTop = 0));
    await rows.nth(0).click();
    await rows.nth(1).click({ modifiers: ['Control'] });
    await bulk.getByRole('button', { name: '⇄ Compare' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail.getByTestId('diff-summary')).toBeVisible();
    await detail.getByRole('button', { name: 'Close detail' }).click();

    // pin and note three at once
    await rows.nth(5).click();
    await rows.nth(7).click({ modifiers: ['Shift'] });
    await bulk.getByRole('button', { name: '★ Pin all' }).click();
    await expect(table.locator('tbody tr.tl-row.pinned')).toHaveCount(3);
    await bulk.getByRole('button', { name: 'Note…' }).click();
    await bulk.getByLabel('Note for the picked exchanges').fill('bulk note');
    await bulk.getByLabel('Note for the picked exchanges').press('Enter');
    await expect(rows.filter({ hasText: '“bulk note”' })).toHaveCount(3);
    // Ctrl+A picks every row shown; Esc goes back to one
    await page.getByTestId('timeline-scroll').focus();
    await page.keyboard.press('Control+a');
    await expect(bulk.getByTestId('picked-count')).toHaveText('30 picked');
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.screenshot(join(SHOTS, 'multi-select-1440.png'));
    await page.keyboard.press('Escape');
    await expect(bulk).toBeHidden();
    expect(problems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
