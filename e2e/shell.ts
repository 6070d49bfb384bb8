import {
  _electron as electron,
  expect,
  test as base,
  type Browser,
  type ElectronApplication,
  type Page,
} from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// One fixture, two shells: every spec drives `app`, and the Playwright project decides which shell it is.
// - 'browser': the browser shell as a user starts it — `mcp-rewind ui` (built by `npm run build`) as a child process,
//   its printed URL opened in real Chromium, over the WebSocket bridge. No stubbed window APIs.
// - 'electron': the desktop shell through Playwright's Electron support — out/main/index.js in the Electron binary,
//   its first window as the page, over the IPC adapter. Where no Electron binary exists (its download is blocked on
//   the CI machines), every test of that project is skipped with the reason printed.
// Both run the same engine and renderer against a fresh user data folder per test (MCP_REWIND_DATA_DIR).
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type Shell = 'browser' | 'electron';

export interface ShellOptions {
  /** which shell the specs drive; set per project in playwright.config.ts */
  shell: Shell;
}

export interface App {
  readonly shell: Shell;
  /** the app's page: a Chromium tab (browser) or the app's first window (electron) */
  readonly page: Page;
  /** the user data folder of this app (settings.json…), fresh for each test */
  readonly dataDir: string;
  /** browser: the one-time sign-in link `mcp-rewind ui` printed (spent by the first open()); electron: the window's file URL */
  readonly url: string;
  /**
   * Browser shell: a new one-time sign-in link, as a user gets one — by running `mcp-rewind ui` again, which prints a
   * link to the running UI. Electron: the window's URL.
   */
  link(): Promise<string>;
  /** console errors and page errors of `page`, collected from before the first load; a spec expects none */
  readonly problems: string[];
  /**
   * Opens the app, at a view when `path` names one ('#/settings'). Browser: loads a sign-in link (+ path) in the page
   * — the printed one the first time, a new one after — as the specs' first step; electron: the window is already
   * loaded, so it waits for that and sets location.hash.
   */
  open(path?: string): Promise<void>;
  /** Screenshot for the docs at `path` under `npm run screenshots` (browser project); otherwise kept in the test output. */
  screenshot(path: string): Promise<void>;
  /**
   * Browser shell: stops `mcp-rewind ui` (SIGTERM) and starts it again on the same port with the same data folder,
   * as a user restarting it would; the open page stays. Electron: not available (skips the test).
   */
  restart(): Promise<void>;
}

const ELECTRON_SKIP =
  "no Electron binary on this machine (require('electron') names a path that does not exist: its download is blocked here); the browser project runs the same specs";
let electronSkipPrinted = false;

function electronBinary(): string | undefined {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined; // electron's index.js throws when its path.txt is missing (binary never downloaded)
  }
}

function requireBuilt(files: string[]): void {
  for (const built of files)
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
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

const SIGN_IN_LINK = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?code=[A-Za-z0-9_-]+)/;

/** `mcp-rewind ui --no-open --port 0` with its own data folder; answers the one-time sign-in link it prints. */
async function startUi(
  dataDir: string,
  port = 0,
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  requireBuilt(['dist/main/cli.js', 'out/renderer/index.html']);
  const child = spawn(process.execPath, [join(ROOT, 'bin/mcp-rewind.js'), 'ui', '--no-open', '--port', String(port)], {
    cwd: ROOT,
    env: { ...process.env, ...extraEnv, MCP_REWIND_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mcp-rewind ui printed no URL within 15 s:\n${out}`)), 15_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = SIGN_IN_LINK.exec(out);
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
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/** `mcp-rewind ui --no-open` again on a running UI's data folder: it prints a new link to the running one and exits. */
async function newLink(dataDir: string): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/mcp-rewind.js'), 'ui', '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const found = SIGN_IN_LINK.exec(out);
  if (code !== 0 || !found) throw new Error(`mcp-rewind ui (run again) printed no link (exit ${code}):\n${out}`);
  return found[1];
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export const test = base.extend<
  { app: App; uiEnv: Record<string, string> },
  ShellOptions & { shellBrowser: Browser | undefined }
>({
  shell: ['browser', { option: true, scope: 'worker' }],
  /** more environment for `mcp-rewind ui` (browser shell), e.g. a HOME of config files for Intercept: test.use({ uiEnv }) */
  uiEnv: [{}, { option: true }],

  // Chromium for the browser project, launched with the config's options. Not Playwright's `browser` fixture: a
  // fixture's dependencies are static, and the electron project must not need (or launch) a Chromium.
  shellBrowser: [
    async ({ shell, playwright, browserName, headless, channel, launchOptions }, use) => {
      if (shell !== 'browser') return use(undefined);
      const browser = await playwright[browserName].launch({ ...launchOptions, headless, channel });
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],

  app: async ({ shell, shellBrowser, uiEnv }, use, testInfo) => {
    // `npm run screenshots` (MCP_REWIND_SCREENSHOTS=1) writes the docs' PNGs; a test run keeps them in its output
    const shot = async (page: Page, path: string): Promise<void> => {
      if (shell === 'browser' && process.env.MCP_REWIND_SCREENSHOTS === '1') {
        mkdirSync(dirname(path), { recursive: true });
        await page.screenshot({ path });
      } else {
        await page.screenshot({ path: testInfo.outputPath(basename(path)) });
      }
    };

    if (shell === 'browser') {
      const dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-data-'));
      let ui: { url: string; child: ChildProcess } | undefined;
      const context = await shellBrowser!.newContext();
      try {
        ui = await startUi(dataDir, 0, uiEnv);
        const page = await context.newPage();
        const url = ui.url;
        let unused: string | undefined = url; // the printed link works once
        const link = async (): Promise<string> => {
          const fresh = unused ?? (await newLink(dataDir));
          unused = undefined;
          return fresh;
        };
        await use({
          shell,
          page,
          dataDir,
          url,
          link,
          problems: watchProblems(page),
          open: async (path = '') => void (await page.goto((await link()) + path)),
          screenshot: (path) => shot(page, path),
          restart: async () => {
            await stop(ui!.child);
            ui = await startUi(dataDir, Number(new URL(url).port), uiEnv);
            unused = ui.url;
          },
        });
      } finally {
        await context.close();
        if (ui) await stop(ui.child);
        rmSync(dataDir, { recursive: true, force: true });
      }
      return;
    }

    const binary = electronBinary();
    if (!binary) {
      if (!electronSkipPrinted) console.log(`[electron] every test of this project is skipped: ${ELECTRON_SKIP}`);
      electronSkipPrinted = true;
      testInfo.skip(true, ELECTRON_SKIP);
      return;
    }
    requireBuilt(['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']);
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-electron-'));
    let electronApp: ElectronApplication | undefined;
    try {
      electronApp = await electron.launch({
        executablePath: binary,
        args: [join(ROOT, 'out/main/index.js')],
        cwd: ROOT,
        env: { ...process.env, MCP_REWIND_DATA_DIR: dataDir },
      });
      const page = await electronApp.firstWindow();
      const problems = watchProblems(page);
      await page.waitForLoadState('domcontentloaded');
      await use({
        shell,
        page,
        dataDir,
        url: page.url(),
        link: async () => page.url(),
        problems,
        open: async (path) => {
          await page.waitForLoadState('domcontentloaded');
          if (path) await page.evaluate((hash) => void (location.hash = hash), path);
        },
        screenshot: (path) => shot(page, path),
        restart: async () => testInfo.skip(true, 'restarting the shell process is a browser-shell test'),
      });
    } finally {
      await electronApp?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
});

export { expect };
