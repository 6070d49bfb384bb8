import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Settings, themes and keyboard navigation against the browser shell as a user starts it (`mcp-rewind ui`, built by
// `npm run build`), in real Chromium, with the real engine and a temp user data folder. No stubbed window APIs.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHOTS = join(ROOT, 'docs/screenshots');

async function startUi(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  for (const built of ['dist/main/cli.js', 'out/renderer/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const child = spawn(process.execPath, [join(ROOT, 'bin/mcp-rewind.js'), 'ui', '--no-open', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcp-rewind ui printed no URL within 15 s:\n${out}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mcp-rewind ui exited (${code}):\n${out}`));
    });
  });
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 });
const background = (page: Page): Promise<string> => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const hashOf = (page: Page): string => new URL(page.url()).hash;

let ui: { url: string; child: ChildProcess };
let dataDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-settings-'));
  ui = await startUi(dataDir);
});
test.afterAll(async () => {
  if (ui) await stop(ui.child);
  rmSync(dataDir, { recursive: true, force: true });
});

test('dark theme: applied at once, saved by the engine in settings.json, still dark after a reload', async ({ page }) => {
  const problems = watchProblems(page);
  await page.emulateMedia({ colorScheme: 'light' }); // 'system' shows light here, so dark is a visible change
  await page.setViewportSize({ width: 1100, height: 760 });
  await page.goto(ui.url);
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
  await expect.poll(() => (existsSync(join(dataDir, 'settings.json')) ? JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).theme : undefined)).toBe('dark');

  // other settings: saved on change, an invalid value answered with the engine's message naming the field
  await page.getByRole('checkbox', { name: /auto-scroll/ }).uncheck();
  const capacity = page.getByLabel('Timeline capacity');
  await capacity.fill('50');
  await capacity.press('Enter');
  await expect(page.getByRole('alert')).toContainText('trafficCapacity');
  await capacity.fill('20000');
  await capacity.press('Enter');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect.poll(() => JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ theme: 'dark', autoScroll: false, trafficCapacity: 20000 });

  // persisted through the engine, not the browser: nothing in localStorage, a reload comes back dark
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  await page.reload();
  await expect(heading(page)).toHaveText('Settings'); // the hash kept the view
  await expect(page.getByRole('radio', { name: 'Dark' })).toBeChecked();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await background(page)).toBe(dark);
  await expect(page.getByLabel('Timeline capacity')).toHaveValue('20000');
  await expect(page.getByRole('checkbox', { name: /auto-scroll/ })).not.toBeChecked();

  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'settings.png') });
  await page.keyboard.press('Control+1');
  await expect(heading(page)).toHaveText('Timeline');
  // the dark timeline with live traffic: the built-in demo (demo server, recording proxy, scripted agent)
  await page.getByRole('button', { name: 'Run demo' }).click();
  const exchanges = async (): Promise<number> => Number(/^\d+/.exec((await page.getByTestId('traffic-count').textContent()) ?? '')?.[0] ?? 0);
  await expect.poll(exchanges, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
  await page.waitForTimeout(1500); // let the scripted agent finish its run
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.getByTestId('traffic-count').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: join(SHOTS, 'timeline-dark.png') });

  // back to System: follows the OS preference
  await page.keyboard.press('Control+5');
  await page.getByRole('radio', { name: 'System' }).check();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(problems).toEqual([]);
});

test('views by name: Ctrl+3 opens Cassettes, the URL hash opens a view directly, back and forward work', async ({ page }) => {
  const problems = watchProblems(page);
  await page.goto(ui.url);
  await expect(heading(page)).toHaveText('Timeline');
  await expect.poll(() => hashOf(page)).toBe('#/timeline'); // a URL without a view names the one shown

  await page.keyboard.press('Control+3');
  await expect(heading(page)).toHaveText('Cassettes');
  expect(hashOf(page)).toBe('#/cassettes');
  await expect(page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Cassettes' })).toHaveAttribute('aria-current', 'page');
  await page.keyboard.press('Control+4');
  await expect(heading(page)).toHaveText('Export');

  await page.goBack();
  await expect(heading(page)).toHaveText('Cassettes');
  await page.goBack();
  await expect(heading(page)).toHaveText('Timeline');
  await page.goForward();
  await expect(heading(page)).toHaveText('Cassettes');

  // each view by its name, opened directly (a fresh page load)
  const base = ui.url.replace(/#.*$/, '');
  for (const [hash, title] of [
    ['#/cassettes', 'Cassettes'],
    ['#/rules', 'Rules'],
    ['#/export', 'Export'],
    ['#/settings', 'Settings'],
    ['#/timeline', 'Timeline'],
  ] as const) {
    const page2 = await page.context().newPage();
    await page2.goto(`${base}${hash}`);
    await expect(heading(page2)).toHaveText(title);
    await page2.close();
  }
  // an unknown name: a fresh page shows the timeline (and names it), an open page stays where it is
  const fresh = await page.context().newPage();
  await fresh.goto(`${base}#/nowhere`);
  await expect(heading(fresh)).toHaveText('Timeline');
  await expect.poll(() => hashOf(fresh)).toBe('#/timeline');
  await fresh.close();
  await page.goto(`${base}#/nowhere`);
  await expect(heading(page)).toHaveText('Cassettes');
  await expect.poll(() => hashOf(page)).toBe('#/cassettes');
  expect(problems).toEqual([]);
});

test('keyboard only: one Tab stop in the nav, arrow keys move a visible focus, Enter opens the view', async ({ page }) => {
  const problems = watchProblems(page);
  await page.goto(ui.url);
  await expect(page.getByRole('status')).toHaveText('connected');
  const nav = page.getByRole('navigation', { name: 'Views' });
  const item = (name: string) => nav.getByRole('button', { name });

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
  await expect(item('Settings')).toBeFocused();
  await page.keyboard.press('ArrowDown'); // wraps around
  await expect(item('Timeline')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(item('Settings')).toBeFocused();
  await page.keyboard.press('Home');
  await expect(item('Timeline')).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.press(' ');
  await expect(heading(page)).toHaveText('Settings');

  // Tab leaves the nav (a single Tab stop); Shift+Tab comes back to the current view's item
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('nav') === null)).toBe(true);
  await page.keyboard.press('Shift+Tab');
  await expect(item('Settings')).toBeFocused();
  expect(problems).toEqual([]);
});
