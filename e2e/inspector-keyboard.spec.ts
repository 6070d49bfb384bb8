import type { Page } from '@playwright/test';
import { expect, test } from './shell.js';

// The keyboard (issue 25, item 5) against the app as a user starts it, with the demo's traffic: a skip link as the
// first Tab stop, the table's Home/End/PageUp/PageDown, tablists as one Tab stop with arrows, menus with arrows, and
// Esc giving the focus back (detail, Copy as, Breakpoints, Compose, the column menu) instead of leaving it on <body>.

const selectedIndex = (page: Page): Promise<number> =>
  page.evaluate(() =>
    Number(document.querySelector('tr.tl-row[aria-selected="true"]')?.getAttribute('data-index') ?? -1),
  );

test('skip link, table keys, tabs with arrows, menus with arrows, and Esc never leaves the focus on <body>', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  for (let run = 1; run <= 3; run++) {
    await page.getByRole('button', { name: 'Run demo' }).click();
    await expect
      .poll(async () => Number(/^\d+/.exec((await page.getByTestId('traffic-count').textContent()) ?? '')?.[0]), {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(7 * run);
  }
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  const scroller = page.getByTestId('timeline-scroll');
  const onBody = (): Promise<boolean> =>
    page.evaluate(() => document.activeElement === document.body || document.activeElement === null);

  // the first Tab stop after a load skips to the traffic
  await page.reload();
  await expect(table.locator('tbody tr.tl-row').first()).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('button', { name: 'Skip to the traffic' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(scroller).toBeFocused();

  // Home, End, PageUp, PageDown move the selection
  await page.keyboard.press('Home');
  await expect.poll(() => selectedIndex(page)).toBe(0);
  await page.keyboard.press('PageDown');
  const paged = await selectedIndex(page);
  expect(paged).toBeGreaterThan(5);
  await page.keyboard.press('End');
  const last = (await table.getAttribute('aria-rowcount')) ?? '0';
  await expect.poll(() => selectedIndex(page)).toBe(Number(last) - 2);
  await page.keyboard.press('PageUp');
  await expect.poll(() => selectedIndex(page)).toBeLessThan(Number(last) - 6);

  // the detail's tabs: one Tab stop, ←/→ Home End; Esc from a tab closes the detail and the table has the focus
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  const tabs = detail.getByRole('tablist', { name: 'Exchange detail sections' });
  await tabs.getByRole('tab', { name: 'Overview' }).focus();
  await page.keyboard.press('ArrowRight'); // Overview, then Problems, then Request
  await expect(tabs.getByRole('tab', { name: /Problems/ })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(tabs.getByRole('tab', { name: 'Request' })).toBeFocused();
  await expect(tabs.getByRole('tab', { name: 'Request' })).toHaveAttribute('aria-selected', 'true');
  await expect(tabs.getByRole('tab', { selected: false }).first()).toHaveAttribute('tabindex', '-1');
  await page.keyboard.press('End');
  await expect(tabs.getByRole('tab').last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(tabs.getByRole('tab', { name: 'Overview' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);
  await expect(scroller).toBeFocused();

  // the timeline's own tabs
  const views = page.getByRole('tablist', { name: 'Timeline views' });
  await views.getByRole('tab', { name: 'Table' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(views.getByRole('tab', { name: 'Waterfall' })).toBeFocused();
  await expect(views.getByRole('tab', { name: 'Waterfall' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(views.getByRole('tab', { name: 'Table' })).toHaveAttribute('aria-selected', 'true');

  // Copy as: a menu with arrows; Esc gives the focus back to its button
  await scroller.focus();
  await page.keyboard.press('Enter');
  const copy = detail.getByRole('button', { name: 'Copy as ▾' });
  await copy.focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'Copy as' });
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: /JSON-RPC message/ })).toBeFocused();
  await page.keyboard.press('End');
  await expect(menu.getByRole('menuitem').last()).toBeFocused();
  await page.keyboard.press('ArrowDown'); // wraps
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(copy).toBeFocused();
  await expect(detail).toBeVisible(); // Esc closed the menu, not the detail

  // the column menu from a header, by the keyboard
  const header = table.locator('thead th', { hasText: /^Method/ }).getByRole('button');
  await header.focus();
  await page.keyboard.press('Shift+F10');
  const columns = page.getByRole('menu', { name: 'Columns' });
  await expect(columns.getByRole('menuitemcheckbox', { name: /Time/ })).toBeFocused(); // # is always shown: not an item to stop on
  await page.keyboard.press('ArrowDown');
  await expect(columns.getByRole('menuitemcheckbox', { name: /Proxy/ })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(columns).toHaveCount(0);
  await expect(header).toBeFocused();

  // Breakpoints: Esc closes the drawer and gives the focus back to its button
  const breakpoints = page.getByRole('button', { name: /^Breakpoints/ });
  await breakpoints.focus();
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('complementary', { name: 'Breakpoints' });
  await expect(drawer).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[aria-label="Breakpoints"]'))))
    .toBe(true);
  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);
  await expect(breakpoints).toBeFocused();

  // Compose takes the focus when it opens; Esc closes it and gives the focus back
  const compose = page.getByRole('button', { name: '✉ Compose' });
  await compose.focus();
  await page.keyboard.press('Enter');
  const drawerCompose = page.getByRole('complementary', { name: 'Compose' });
  await expect(drawerCompose.getByRole('heading', { name: 'Compose' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(drawerCompose).toHaveCount(0);
  await expect(compose).toBeFocused();
  expect(await onBody()).toBe(false);
  expect(problems).toEqual([]);
});
