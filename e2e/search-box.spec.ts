import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { shownCount } from './inspector-helpers.js';
import { count } from './layout.js';
import { ROOT, expect, test } from './shell.js';

// Issue 35 items 2 and 3, as a DevTools user types them into the search box: `!` negates (it kept nothing, silently),
// a term with an unknown key is said beside the box, and Esc closes the completion list first, then leaves the box
// for the table (it cleared the query and left the focus on <body>). The demo's real traffic.

const SHOTS = join(ROOT, 'test-results', 'screenshots'); // inside the checkout (ignored), never beside it

async function runDemo(page: Page): Promise<number> {
  await page.getByRole('button', { name: 'Run demo' }).click();
  await expect.poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 }).toBeGreaterThanOrEqual(7);
  const counter = page.getByTestId('filter-count');
  await expect(counter).toHaveText(/^(\d+) of \1$/);
  return Number((await counter.textContent())!.split(' of ')[1]);
}

const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el === document.body || !el
      ? 'body'
      : (el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.tagName);
  });

test('the search box: `!` negates as `-` does, an unknown key is said, Esc closes the list then goes to the table', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  const all = await runDemo(page);
  const box = page.getByRole('combobox', { name: 'Search' });
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  const note = page.locator('#tl-query-problem');

  // `!tool:weather` keeps what `-tool:weather` keeps: everything but the weather calls, and nothing is said
  await box.fill('-tool:weather');
  await expect.poll(() => shownCount(page)).toBeLessThan(all);
  const negated = await shownCount(page);
  expect(negated).toBeGreaterThan(0);
  await box.fill('!tool:weather');
  await expect.poll(() => shownCount(page)).toBe(negated);
  await expect(note).toHaveCount(0);
  await expect(table.getByRole('row').filter({ hasText: 'weather' })).toHaveCount(0);

  // a key that is no filter: said beside the box, with the key meant; the box is marked invalid
  await box.fill('tol:weather');
  await expect(note).toHaveText('tol: is not a filter (did you mean tool:?) — searched as text');
  await expect(box).toHaveAttribute('aria-invalid', 'true');
  await expect(box).toHaveAccessibleDescription(/tol: is not a filter/);
  mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: join(SHOTS, `search-not-understood-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 720 });

  // Esc: the first closes the completion list (the query stays), the second leaves the box for the table
  await box.fill('');
  await table.getByRole('row').filter({ hasText: 'logo' }).first().click();
  const selected = table.locator('tr[aria-selected="true"]');
  await expect(selected).toContainText('logo');
  await box.click();
  await box.fill('tool:');
  await box.press('ArrowDown');
  const list = page.getByRole('listbox', { name: 'Filter completions' });
  await expect(list).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);
  await expect(box).toHaveValue('tool:');
  await expect(box).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(box).toHaveValue('tool:');
  await expect.poll(() => focused(page)).toBe('timeline-scroll');
  // the table has the keys now: ↓ moves its selection from the row that was selected
  await expect(selected).toContainText('logo');
  await page.keyboard.press('ArrowDown');
  await expect(selected).not.toContainText('logo');

  // with no list open, one Esc leaves the box, the query kept
  await box.fill('!tool:weather');
  await expect(page.getByRole('listbox', { name: 'Filter completions' })).toHaveCount(0);
  await box.press('Escape');
  await expect(box).toHaveValue('!tool:weather');
  await expect.poll(() => focused(page)).toBe('timeline-scroll');
  expect(problems).toEqual([]);
});
