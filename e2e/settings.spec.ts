import type { Page } from '@playwright/test';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { savedSettings } from './inspector-helpers.js';
import { expect, ROOT, test, type App } from './shell.js';

// Settings, themes and keyboard navigation against the app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real
// Chromium, or the Electron app), with the real engine and a temp user data folder. No stubbed window APIs.
const SHOTS = join(ROOT, 'docs/screenshots');

const heading = (page: Page) => page.getByRole('heading', { level: 1 });
const background = (page: Page): Promise<string> =>
  page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const hashOf = (page: Page): string => new URL(page.url()).hash;

/**
 * The app opened directly at `hash` by a fresh page load: a new page of the browser context in the browser shell; in
 * the Electron shell (one window) the window itself, its URL set without a hashchange and reloaded.
 */
async function loadFresh(app: App, hash: string): Promise<{ page: Page; done: () => Promise<void> }> {
  if (app.shell === 'browser') {
    const page = await app.page.context().newPage();
    await page.goto(`${(await app.link()).replace(/#.*$/, '')}${hash}`); // a new tab signs in with a link of its own
    return { page, done: () => page.close() };
  }
  await app.page.evaluate((h) => history.replaceState(history.state, '', h), hash);
  await app.page.reload();
  return { page: app.page, done: async () => {} };
}

test('dark theme: applied at once, saved by the engine in settings.json, still dark after a reload', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.emulateMedia({ colorScheme: 'light' }); // 'system' shows light here, so dark is a visible change
  await page.setViewportSize({ width: 1100, height: 760 });
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Settings' }).click();
  await expect(heading(page)).toHaveText('Settings');
  expect(hashOf(page)).toBe('#/settings');
  await expect(page.getByRole('radio', { name: 'System' })).toBeChecked();
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'light');
  const light = await background(page);

  await page.getByRole('radio', { name: 'Dark' }).check();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  const dark = await background(page);
  expect(dark).not.toBe(light);
  // dark really is darker: the sum of the background's RGB channels
  const lum = (rgb: string): number => (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((sum, n) => sum + Number(n), 0);
  expect(lum(dark)).toBeLessThan(lum(light));
  await expect.poll(() => savedSettings(app.dataDir).theme).toBe('dark');

  // other settings: saved on change, an invalid value answered with the engine's message naming the field
  await page.getByRole('checkbox', { name: /auto-scroll/ }).uncheck();
  const capacity = page.getByLabel('Timeline capacity');
  await capacity.fill('50');
  await capacity.press('Enter');
  await expect(page.getByRole('alert')).toContainText('trafficCapacity');
  await capacity.fill('20000');
  await capacity.press('Enter');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect
    .poll(() => savedSettings(app.dataDir))
    .toMatchObject({ theme: 'dark', autoScroll: false, trafficCapacity: 20000 });

  // persisted through the engine, not the browser: nothing in localStorage, a reload comes back dark
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  await page.reload();
  await expect(heading(page)).toHaveText('Settings'); // the hash kept the view
  await expect(page.getByRole('radio', { name: 'Dark' })).toBeChecked();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await background(page)).toBe(dark);
  await expect(page.getByLabel('Timeline capacity')).toHaveValue('20000');
  await expect(page.getByRole('checkbox', { name: /auto-scroll/ })).not.toBeChecked();

  await app.screenshot(join(SHOTS, 'settings.png'));
  await page.keyboard.press('Control+1');
  await expect(heading(page)).toHaveText('Timeline');
  // the dark timeline with live traffic: the built-in demo (demo server, recording proxy, scripted agent)
  await page.getByRole('button', { name: 'Run demo' }).click();
  // the scripted agent's run is over when its last call (summarize) is in the table
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  await expect(table.getByRole('row').filter({ hasText: 'summarize' })).toHaveCount(1, { timeout: 20_000 });
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.getByTestId('traffic-count').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await app.screenshot(join(SHOTS, 'timeline-dark.png'));

  // back to System: follows the OS preference
  await page.keyboard.press('Control+5');
  await page.getByRole('radio', { name: 'System' }).check();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(problems).toEqual([]);
});

test('a change the engine cannot save is said in the view where it was made, and cleared by the next save', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  const preserve = page.getByRole('checkbox', { name: 'Preserve log' });
  await expect(preserve).not.toBeChecked();
  // a real write failure: settings.json is a folder, so the engine's rename onto it fails (as root too)
  const file = join(app.dataDir, 'settings.json');
  mkdirSync(file);
  // click, not check(): a refused save puts the box back, and check() fails when that lands before it looks
  await preserve.click();
  const notice = page.getByRole('alert', { name: 'Settings not saved' });
  await expect(notice).toContainText(`cannot write ${file}`);
  await expect(preserve).not.toBeChecked(); // the shown state is the saved one
  expect(existsSync(join(file, 'settings.json'))).toBe(false);

  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  await preserve.click();
  await expect(notice).toBeVisible(); // still refused: said again
  await expect(preserve).not.toBeChecked();
  rmSync(file, { recursive: true });
  await preserve.check();
  await expect(notice).toHaveCount(0);
  await expect.poll(() => savedSettings(app.dataDir).preserveLog).toBe(true);
  expect(problems).toEqual([]);
});

test('views by name: Ctrl+3 opens Cassettes, the URL hash opens a view directly, back and forward work', async ({
  app,
}) => {
  test.setTimeout(60_000); // a fresh page load per view
  const { page, problems } = app;
  await app.open();
  await expect(heading(page)).toHaveText('Timeline');
  await expect.poll(() => hashOf(page)).toBe('#/timeline'); // a URL without a view names the one shown

  await page.keyboard.press('Control+3');
  await expect(heading(page)).toHaveText('Cassettes');
  expect(hashOf(page)).toBe('#/cassettes');
  await expect(
    page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Cassettes' }),
  ).toHaveAttribute('aria-current', 'page');
  await page.keyboard.press('Control+4');
  await expect(heading(page)).toHaveText('Export');

  await page.goBack();
  await expect(heading(page)).toHaveText('Cassettes');
  await page.goBack();
  await expect(heading(page)).toHaveText('Timeline');
  await page.goForward();
  await expect(heading(page)).toHaveText('Cassettes');

  // an unknown name: an open page stays where it is (the page's own URL, with only its hash changed)
  await page.evaluate(() => void (location.hash = '#/nowhere'));
  await expect(heading(page)).toHaveText('Cassettes');
  await expect.poll(() => hashOf(page)).toBe('#/cassettes');

  // each view by its name, opened directly (a fresh page load)
  for (const [hash, title] of [
    ['#/cassettes', 'Cassettes'],
    ['#/rules', 'Rules'],
    ['#/export', 'Export'],
    ['#/settings', 'Settings'],
    ['#/intercept', 'Intercept'],
    ['#/timeline', 'Timeline'],
  ] as const) {
    const page2 = await loadFresh(app, hash);
    await expect(heading(page2.page)).toHaveText(title);
    await page2.done();
  }
  // an unknown name: a fresh page shows the timeline (and names it)
  const fresh = await loadFresh(app, '#/nowhere');
  await expect(heading(fresh.page)).toHaveText('Timeline');
  await expect.poll(() => hashOf(fresh.page)).toBe('#/timeline');
  await fresh.done();
  expect(problems).toEqual([]);
});

test('keyboard only: one Tab stop in the nav, arrow keys move a visible focus, Enter opens the view', async ({
  app,
}) => {
  const { page, problems } = app;
  await app.open();
  await expect(page.getByRole('status')).toHaveText('connected');
  const nav = page.getByRole('navigation', { name: 'Views' });
  const item = (name: string) => nav.getByRole('button', { name });

  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Skip to the traffic' })).toBeFocused(); // the skip link comes first
  await page.keyboard.press('Tab');
  await expect(item('Timeline')).toBeFocused(); // the current view is the nav's Tab stop
  const ring = await item('Timeline').evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(ring).not.toBe('none'); // a visible focus ring

  await page.keyboard.press('ArrowDown');
  await expect(item('Rules')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(item('Cassettes')).toBeFocused();
  await expect(heading(page)).toHaveText('Timeline'); // moving the focus does not switch views
  await page.keyboard.press('Enter');
  await expect(heading(page)).toHaveText('Cassettes');
  await expect(item('Cassettes')).toHaveAttribute('aria-current', 'page');

  await page.keyboard.press('End');
  await expect(item('Intercept')).toBeFocused();
  await page.keyboard.press('ArrowDown'); // wraps around
  await expect(item('Timeline')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(item('Intercept')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(item('Settings')).toBeFocused();
  await page.keyboard.press('Home');
  await expect(item('Timeline')).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press(' ');
  await expect(heading(page)).toHaveText('Settings');

  // Tab leaves the nav (a single Tab stop); Shift+Tab comes back to the current view's item
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('nav') === null)).toBe(true);
  await page.keyboard.press('Shift+Tab');
  await expect(item('Settings')).toBeFocused();
  expect(problems).toEqual([]);
});
