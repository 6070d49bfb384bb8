import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import type { ShellOptions } from './e2e/shell.js';

// Debian's Chromium where present (CI and these machines cannot download Playwright's own browsers);
// elsewhere Playwright's bundled Chromium (`npx playwright install chromium`).
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig<ShellOptions>({
  testDir: 'e2e',
  outputDir: 'test-results/playwright-artifacts',
  timeout: 30_000,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    headless: true,
    launchOptions: {
      executablePath: systemChromium,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  // The same specs against both shells through the `app` fixture of e2e/shell.ts: 'browser' runs `mcp-rewind ui` in
  // Chromium (and, under `npm run screenshots`, writes the docs' screenshots); 'electron' runs the desktop app through Playwright's Electron
  // support, and skips every test with the reason printed where no Electron binary exists (as on the CI machines).
  projects: [
    { name: 'browser', use: { shell: 'browser' } },
    { name: 'electron', use: { shell: 'electron' } },
  ],
});
