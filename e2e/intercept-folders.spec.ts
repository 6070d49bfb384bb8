import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ROOT, expect, test } from './shell.js';

// Issue 35 item 5: the Intercept view read only the app process's own HOME. The user adds a folder to look in — a
// project (its .mcp.json) or another home (its ~/.cursor/mcp.json) — as `--project` does in the CLI: checked (it must
// exist and be a folder), shown, kept across a restart, removable; a Wrap writes inside that folder only.

const ROOT_DIR = join(tmpdir(), `rewind-e2e-folders-${process.pid}`);
const HOME = join(ROOT_DIR, 'app-home'); // the app's own HOME: empty, and it stays so
const OTHER = join(ROOT_DIR, 'other-home');
const PROJECT = join(ROOT_DIR, 'my project');
const CURSOR = join(OTHER, '.cursor', 'mcp.json');
const MCP_JSON = join(PROJECT, '.mcp.json');
const SHOTS = join(ROOT, 'test-results', 'screenshots'); // inside the checkout (ignored), never beside it
const STDIO = { command: process.execPath, args: ['notes-server.js'] };

test.use({
  uiEnv: {
    HOME,
    USERPROFILE: HOME,
    XDG_CONFIG_HOME: join(HOME, '.config'),
    APPDATA: join(HOME, 'AppData'),
    CODEX_HOME: '',
  },
});
test.beforeAll(() => {
  rmSync(ROOT_DIR, { recursive: true, force: true });
  mkdirSync(HOME, { recursive: true });
  mkdirSync(join(OTHER, '.cursor'), { recursive: true });
  mkdirSync(PROJECT, { recursive: true });
  writeFileSync(CURSOR, `${JSON.stringify({ mcpServers: { notes: STDIO } }, null, 2)}\n`);
  writeFileSync(MCP_JSON, `${JSON.stringify({ mcpServers: { 'project-tools': STDIO } }, null, 2)}\n`);
});
test.afterAll(() => rmSync(ROOT_DIR, { recursive: true, force: true }));

async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('Intercept: a folder added to look in (a project, another home) is read, kept, removable; a Wrap writes only there', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  await expect(page.getByRole('heading', { name: 'Timeline', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+6');
  await expect(page.getByRole('heading', { name: 'Intercept', level: 1 })).toBeVisible();
  const summary = page.getByTestId('intercept-summary');
  await expect(summary).toHaveText('0 clients · 0 servers · 0 through mcp-rewind · 0 live');
  const add = page.getByRole('form', { name: 'Add a folder to look in' });
  const folders = page.getByRole('list', { name: 'Folders looked in' });

  // refused, said beside the form, nothing kept: a folder that does not exist, a file
  await add.getByLabel('Folder').fill(join(ROOT_DIR, 'nowhere'));
  await add.getByRole('button', { name: 'Add folder' }).click();
  await expect(add.getByRole('alert')).toHaveText(`path: ${join(ROOT_DIR, 'nowhere')}: no such folder`);
  await add.getByLabel('Folder').fill(CURSOR);
  await add.getByRole('button', { name: 'Add folder' }).click();
  await expect(add.getByRole('alert')).toHaveText(`path: ${CURSOR}: not a folder`);
  await expect(folders).toHaveCount(0);

  // another home, then a project: their servers are listed
  await add.getByLabel('Folder').fill(OTHER);
  await add.getByLabel('as').selectOption('home');
  await add.getByRole('button', { name: 'Add folder' }).click();
  await expect(add.getByRole('alert')).toHaveCount(0);
  await expect(add.getByLabel('Folder')).toHaveValue('');
  await add.getByLabel('Folder').fill(PROJECT);
  await add.getByLabel('as').selectOption('project');
  await add.getByRole('button', { name: 'Add folder' }).click();
  await expect(folders.getByRole('listitem')).toHaveText([/other-home.*home folder/, /my project.*project folder/]);
  await expect(summary).toHaveText('2 clients · 2 servers · 0 through mcp-rewind · 0 live');
  const clients = page.getByRole('region', { name: 'Clients' });
  await expect(clients.getByRole('listitem', { name: 'Cursor' })).toContainText('notes');
  const projectServer = clients
    .getByRole('listitem', { name: 'Claude Code' })
    .getByRole('button', { name: /^project-tools stdio project/ });
  await expect(projectServer).toBeVisible();
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'intercept-folders-1280.png') });
  expect(await axe(page)).toEqual([]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: join(SHOTS, 'intercept-folders-1440.png') });
  await page.setViewportSize({ width: 1280, height: 720 });

  // kept: the UI restarted on the same data folder lists them again
  await app.restart();
  await app.open();
  await expect(page.getByRole('heading', { name: 'Timeline', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+6');
  await expect(folders.getByRole('listitem')).toHaveCount(2);
  await expect(summary).toHaveText('2 clients · 2 servers · 0 through mcp-rewind · 0 live');

  // a Wrap of the project's server writes its .mcp.json, nothing else
  const cursorBefore = readFileSync(CURSOR, 'utf8');
  await projectServer.click();
  await page.getByRole('region', { name: 'Server' }).getByRole('button', { name: 'Wrap…' }).click();
  const change = page.getByRole('region', { name: 'Change' });
  await expect(change.getByRole('region', { name: `Change to ${MCP_JSON}` })).toContainText('--attach');
  await change.getByRole('button', { name: 'Write the change' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Wrapped claude-code:project-tools' })).toBeVisible();
  expect(readFileSync(MCP_JSON, 'utf8')).toContain('--attach');
  expect(readFileSync(CURSOR, 'utf8')).toBe(cursorBefore);
  expect(readdirSync(HOME)).toEqual([]);

  // removed: its servers go from the list
  await folders.getByRole('button', { name: `Remove ${OTHER}` }).click();
  await expect(folders.getByRole('listitem')).toHaveCount(1);
  await expect(clients.getByRole('listitem', { name: 'Cursor' })).toHaveCount(0);
  await expect(summary).toHaveText('1 clients · 1 servers · 1 through mcp-rewind · 0 live');
  // while the UI was restarting, the page's reconnects were refused: that only
  expect(problems.filter((p) => !p.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
});
