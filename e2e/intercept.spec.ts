import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { clientHome, type ClientHome } from '../test/helpers/client-configs.js';
import { entryOf } from '../test/helpers/config-entry.js';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './shell.js';

/** serious or critical axe violations of the page now (as e2e/a11y.spec.ts audits the other views) */
async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

// The Intercept view (Ctrl+6) against `mcp-rewind ui` whose HOME holds every client's config files in their real
// formats: the clients found, a Wrap shown as a diff before it is written, the wrapped entry launched by a real SDK
// client exactly as the file says, its exchanges on the Timeline live, and Unwrap putting the file back byte for byte.

const HOME = join(tmpdir(), `rewind-e2e-intercept-${process.pid}`);
const CONFIG = join(HOME, '.config');
test.use({
  uiEnv: {
    HOME,
    USERPROFILE: HOME,
    XDG_CONFIG_HOME: CONFIG,
    APPDATA: join(HOME, 'AppData', 'Roaming'),
    CODEX_HOME: '',
  },
});

let home: ClientHome;
test.beforeEach(async () => {
  rmSync(HOME, { recursive: true, force: true });
  mkdirSync(HOME, { recursive: true });
  home = await clientHome({ home: HOME });
});
test.afterAll(() => rmSync(HOME, { recursive: true, force: true }));

test('Intercept: clients found, Wrap as a diff, the agent’s traffic on the Timeline, Unwrap byte for byte', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const desktop = home.files['claude-desktop'][0];
  const original = readFileSync(desktop, 'utf8');
  let agent: Client | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await expect(page.getByRole('heading', { name: 'Timeline', level: 1 })).toBeVisible();
    await page.keyboard.press('Control+6');
    await expect(page.getByRole('heading', { name: 'Intercept', level: 1 })).toBeVisible();
    const clients = page.getByRole('region', { name: 'Clients' });
    await expect(page.getByTestId('intercept-summary')).toHaveText(
      '7 clients · 14 servers · 0 through mcp-rewind · 0 live',
    );
    for (const label of ['Claude Desktop', 'Claude Code', 'Cursor', 'VS Code', 'Windsurf', 'Gemini CLI', 'Codex CLI'])
      await expect(clients.getByRole('listitem', { name: label })).toBeVisible();
    const server = clients
      .getByRole('listitem', { name: 'Claude Desktop' })
      .getByRole('button', { name: /^everything stdio user/ });
    await expect(server).toHaveAttribute('data-target', 'claude-desktop:everything');
    await expect(server).toContainText(/direct$/);
    await server.click();
    const detail = page.getByRole('region', { name: 'Server' });
    await expect(detail.getByRole('heading', { name: 'Claude Desktop · everything' })).toBeVisible();
    await expect(detail).toContainText('env: EVERYTHING_FROM_FILE (values kept as they are)');
    await app.screenshot('docs/screenshots/intercept.png');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.screenshot('docs/screenshots/intercept-1440.png');
    await page.setViewportSize({ width: 1280, height: 720 });

    // Wrap shows what will change first; nothing is written until Write
    await detail.getByRole('button', { name: 'Wrap…' }).click();
    const change = page.getByRole('region', { name: 'Change' });
    await expect(change.getByRole('heading', { name: 'Wrap: review the change' })).toBeVisible();
    await expect(change.getByRole('region', { name: `Change to ${desktop}` })).toContainText('--attach');
    expect(readFileSync(desktop, 'utf8')).toBe(original);
    await app.screenshot('docs/screenshots/intercept-diff.png');
    expect(await axe(page)).toEqual([]);
    await change.getByRole('button', { name: 'Write the change' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Wrapped claude-desktop:everything' })).toContainText(
      'restart Claude Desktop to apply',
    );
    await expect(server).toContainText('through mcp-rewind · not started by the client since');

    // the client launches the entry exactly as the file now says
    const entry = entryOf(desktop, ['mcpServers', 'everything']);
    agent = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await agent.connect(
      new StdioClientTransport({ command: entry.command, args: entry.args ?? [], env: entry.env, stderr: 'ignore' }),
    );
    await expect(server).toContainText('through mcp-rewind · live', { timeout: 15_000 });
    await agent.callTool({ name: 'echo', arguments: { message: 'seen by the inspector' } });
    await agent.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    await server.click();
    await detail.getByRole('button', { name: 'Show its traffic' }).click();
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(table.getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(2);
    await expect(table.getByRole('row').filter({ hasText: 'echo' }).getByRole('cell').nth(2)).toHaveText(
      /^claude-desktop:everything/,
    );
    const proxyRow = page
      .getByRole('list', { name: 'Proxy list' })
      .getByRole('listitem')
      .filter({ hasText: 'claude-desktop:everything' });
    await expect(proxyRow).toContainText('attached');
    await expect(proxyRow).toContainText('e2e-agent');
    await app.screenshot('docs/screenshots/intercept-timeline.png');

    // Unwrap: the file is back byte for byte
    await page.keyboard.press('Control+6');
    await server.click();
    await detail.getByRole('button', { name: 'Unwrap…' }).click();
    await change.getByRole('button', { name: 'Write the change' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Unwrapped claude-desktop:everything' })).toContainText(
      'restored byte for byte',
    );
    expect(readFileSync(desktop, 'utf8')).toBe(original);
    expect(problems).toEqual([]);
  } finally {
    await agent?.close().catch(() => {});
  }
});

test('Intercept: a malformed file is shown with its reason and left as it is', async ({ app }) => {
  const { page } = app;
  const codex = home.files.codex[0];
  const { writeFileSync } = await import('node:fs');
  writeFileSync(codex, '[mcp_servers.x]\ncommand = \n');
  await app.open('#/intercept');
  const block = page.getByRole('region', { name: 'Clients' }).getByRole('listitem', { name: 'Codex CLI' });
  await expect(block.getByRole('alert')).toContainText('not valid TOML');
  await expect(block.getByRole('alert')).toContainText('left as it is');
  expect(readFileSync(codex, 'utf8')).toBe('[mcp_servers.x]\ncommand = \n');
});
