import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';

// The browser shell as a user starts it: `mcp-rewind ui` (built by `npm run build`) as a child process, its printed
// URL opened in real Chromium, driving the real engine and a real SDK upstream. No stubbed window APIs.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface UiProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function startUiProcess(dataDir: string): Promise<UiProcess> {
  for (const built of ['dist/main/cli.js', 'out/renderer/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const child = spawn(process.execPath, [join(ROOT, 'bin/mcp-rewind.js'), 'ui', '--no-open', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcp-rewind ui printed no URL within 15 s:\n${out}`)), 15_000);
    const look = (): void => {
      const found = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mcp-rewind ui exited (${code}):\n${out}`));
    });
  });
  return { url, child, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** console errors and page errors, checked at the end of each test */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

let ui: UiProcess;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-data-'));
  ui = await startUiProcess(dataDir);
});
test.afterAll(async () => {
  if (ui) await stop(ui.child);
  rmSync(dataDir, { recursive: true, force: true });
});

test('mcp-rewind ui: the page needs the token; with it the UI loads, connects and navigates between views', async ({ page, request }) => {
  const bare = await request.get(ui.url.replace(/\?token=.*$/, ''));
  expect(bare.status()).toBe(401);

  const problems = watchProblems(page);
  await page.goto(ui.url);
  const nav = page.getByRole('navigation', { name: 'Views' });
  await expect(nav).toBeVisible();
  for (const name of ['Timeline', 'Rules', 'Cassettes', 'Export', 'Settings']) await expect(nav.getByRole('button', { name })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
  await expect(page.getByText('Browser')).toBeVisible(); // no preload bridge: the WebSocket transport
  await expect(page.getByRole('status')).toHaveText('connected');
  await expect(page.getByText('No proxy yet')).toBeVisible(); // proxies.list answered over the bridge

  await nav.getByRole('button', { name: 'Cassettes' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cassettes');
  await expect(nav.getByRole('button', { name: 'Cassettes' })).toHaveAttribute('aria-current', 'page');
  await nav.getByRole('button', { name: 'Timeline' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');

  // the cookie set by the first page load lets a reload without the token in
  await page.goto(ui.url.replace(/\?token=.*$/, ''));
  await expect(page.getByRole('status')).toHaveText('connected');
  expect(problems).toEqual([]);
});

test('a proxy created from the UI in front of a real SDK server counts the traffic of a real SDK client', async ({ page }) => {
  const problems = watchProblems(page);
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-cassette-'));
  let mcp: ConnectedClient | undefined;
  try {
    await page.goto(ui.url);
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Cassette folder').fill(cassette);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();

    const row = page.getByRole('table', { name: 'Proxies' }).getByRole('row').filter({ hasText: 'fixture' });
    await expect(row.getByText('running')).toBeVisible();
    await expect(row.getByTestId('exchanges')).toHaveText('0');
    const endpoint = (await row.locator('code').textContent()) ?? '';
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    // a bad input is answered with the engine's message, naming the field
    await form.getByLabel('Mode').selectOption('replay');
    await form.getByLabel('Cassette folder').fill('');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByRole('alert')).toContainText('cacheDir');

    mcp = await connectClient(endpoint);
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'from the e2e' } });
    await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    // initialize, notifications/initialized?, tools/call ×2 (the engine decides what an exchange is): at least 3
    await expect.poll(async () => Number(await row.getByTestId('exchanges').textContent()), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const recent = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(1);
    await expect(recent.getByRole('row').filter({ hasText: 'add' }).first()).toContainText('tools/call');
    expect(upstream.calls.map((c) => c.tool)).toEqual(['echo', 'add']);

    await page.setViewportSize({ width: 1100, height: 700 });
    await page.screenshot({ path: join(ROOT, 'docs/screenshot.png') });

    // pause holds new exchanges back; clear empties the engine's buffer and the view
    await page.getByRole('button', { name: 'Pause' }).click();
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'while paused' } });
    await expect(page.getByTestId('traffic-count')).toContainText('held while paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(2);
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges');
    await page.reload();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges'); // cleared in the engine, not only the view

    await row.getByRole('button', { name: 'Stop' }).click();
    await expect(row.getByText('stopped')).toBeVisible();
    await row.getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByText('No proxy yet')).toBeVisible();
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});
