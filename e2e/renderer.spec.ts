import { expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveFolder } from './static-server.js';

// The built renderer (npm run build) in real Chromium, through the browser shell path (no Electron preload).
const RENDERER = fileURLToPath(new URL('../out/renderer', import.meta.url));
let server: Awaited<ReturnType<typeof serveFolder>>;

test.beforeAll(async () => {
  if (!existsSync(RENDERER)) throw new Error(`${RENDERER} is missing: run npm run build first`);
  server = await serveFolder(RENDERER);
});
test.afterAll(async () => server?.close());

test('the built renderer starts, navigates between views, and runs under its CSP', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  await page.goto(server.url);
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
  await page.getByRole('button', { name: 'Cassettes' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cassettes');
  await expect(page.getByRole('button', { name: 'Cassettes' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByText('Browser')).toBeVisible(); // no preload bridge in the browser shell
  await page.setViewportSize({ width: 1100, height: 640 });
  await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshot.png', import.meta.url)) });
  expect(problems).toEqual([]);
});
