import { _electron as electron, expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectClient } from '../test/fixtures/client.js';
import { startSdkServer } from '../test/fixtures/sdk-server.js';

// The desktop shell through Playwright's Electron support: the same engine and renderer as the browser-shell specs,
// over the Electron IPC adapter instead of the WebSocket bridge. Electron's binary cannot be downloaded on the CI
// machines (TOOLCHAIN.md), so there these tests skip with the reason printed; the browser-shell specs cover the same
// flows against the same handler table.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function electronBinary(): string | undefined {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const binary = electronBinary();
const SKIP_REASON = 'no Electron binary on this machine (its download is blocked here): the browser-shell specs cover the same flows';
if (!binary) console.log(`e2e/electron.spec.ts skipped: ${SKIP_REASON}`);

test.describe('the Electron shell', () => {
  test.skip(!binary, SKIP_REASON);

  test('opens the app window, navigates, creates a proxy and shows the traffic of a real SDK client', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-electron-'));
    const cassette = mkdtempSync(join(tmpdir(), 'rewind-electron-cassette-'));
    const upstream = await startSdkServer();
    const app = await electron.launch({ executablePath: binary, args: [join(ROOT, 'out/main/index.js')], env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir } });
    try {
      const page = await app.firstWindow();
      await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
      for (const view of ['Rules', 'Cassettes', 'Export', 'Settings', 'Timeline']) {
        await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: new RegExp(view) }).click();
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(view);
      }
      const form = page.getByRole('form', { name: 'New proxy' });
      await form.getByLabel('Mode').selectOption('record');
      await form.getByLabel('Upstream URL').fill(upstream.url);
      await form.getByLabel('Cassette folder').fill(cassette);
      await form.getByLabel('Name').fill('desktop');
      await form.getByRole('button', { name: 'Create proxy' }).click();
      const row = page.getByRole('table', { name: 'Proxies' }).getByRole('row').filter({ hasText: 'desktop' });
      await expect(row.getByText('running')).toBeVisible();
      const endpoint = (await row.locator('code').textContent()) ?? '';
      const client = await connectClient(endpoint);
      await client.client.callTool({ name: 'echo', arguments: { text: 'from electron' } });
      await expect.poll(async () => Number(await row.getByTestId('exchanges').textContent()), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await client.close();
    } finally {
      await app.close();
      await upstream.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(cassette, { recursive: true, force: true });
    }
  });
});
