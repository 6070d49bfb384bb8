import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startEverything, type EverythingHttpHandle } from '../test/fixtures/everything.js';
import { startInspectServer, type InspectServer } from '../test/fixtures/inspect-server.js';
import { newProxy } from './inspector-helpers.js';
import { expect, ROOT, test } from './shell.js';

// Request-level control of what the app sends (issue 25 item 12), in real Chromium against `mcp-rewind ui`: headers
// and `_meta` on an Edit & resend, seen by a real SDK server; what the app's session declares, shown beside what the
// agent's session declared, and changed by the user — server-everything then offers the app other tools, and
// get-roots-list answers the roots the user gave.

const SHOTS = join(ROOT, 'test-results');
let agent: ConnectedClient | undefined;
let inspect: InspectServer | undefined;
let everything: EverythingHttpHandle | undefined;
test.afterEach(async () => {
  await agent?.close().catch(() => {});
  await inspect?.close();
  await everything?.close();
  agent = inspect = everything = undefined;
});

test('Edit & resend with an Authorization header and _meta: the server gets both; a bad header line is refused', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  inspect = await startInspectServer();
  const row = await newProxy(page, { mode: 'proxy-only', name: 'watch', upstreamUrl: inspect.url });
  await expect(row.getByText('running', { exact: true })).toBeVisible();
  agent = await connectClient((await row.locator('code.proxy-endpoint').textContent()) ?? '', {
    name: 'e2e-agent',
    onSampling: false,
    onElicit: false,
  });
  await agent.client.callTool({ name: 'inspect', arguments: {} });
  await page.getByRole('table', { name: 'Recent exchanges' }).getByRole('row').filter({ hasText: 'inspect' }).click();
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  await detail.getByRole('button', { name: '✎ Edit & resend' }).click();
  // the app's session and the agent's, side by side
  await expect(detail.getByTestId('app-session-declared')).toContainText(
    "The app's session declares sampling, elicitation, roots (0); e2e-agent's session declared nothing",
  );
  // the disclosure opens on a click; again if the editor re-rendered under it (it once stayed closed in CI)
  const headersField = detail.getByLabel(/HTTP headers of this request/);
  await expect(async () => {
    if (!(await headersField.isVisible())) await detail.getByText('Headers and _meta').click();
    await expect(headersField).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
  await headersField.fill('Authorization: Bearer e2e-token\nX-Trace: t-1');
  await detail.getByLabel('_meta (a JSON object)').fill('{ "example.com/run": 3 }');
  await page.screenshot({ path: join(SHOTS, 'request-options-1280.png') });
  await detail.getByRole('button', { name: 'Send edited request' }).click();
  await expect(detail.getByRole('status').filter({ hasText: /^Sent as #\d+/ })).toContainText(
    'ok: {"authorization":"Bearer e2e-token","trace":"t-1","meta":{"example.com/run":3}',
  );
  // a bad line is refused here, saying which
  await detail.getByLabel(/HTTP headers of this request/).fill('no colon here');
  await detail.getByRole('button', { name: 'Send edited request' }).click();
  await expect(detail.getByRole('alert')).toHaveText('headers, line 1: expected "Name: value"');
  expect(problems).toEqual([]);
});

test('Compose: the app session declares what the user chooses; the server offers other tools and lists the roots', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open();
  everything = await startEverything('streamableHttp');
  const row = await newProxy(page, { mode: 'proxy-only', name: 'ev', upstreamUrl: everything.url });
  await expect(row.getByText('running', { exact: true })).toBeVisible();
  agent = await connectClient((await row.locator('code.proxy-endpoint').textContent()) ?? '', {
    name: 'e2e-agent',
    onSampling: false,
    onElicit: false,
  });
  await page.getByRole('button', { name: 'Compose a call through ev' }).click();
  const compose = page.getByRole('complementary', { name: 'Compose' });
  const tools = compose.getByLabel('Tool');
  await expect(tools.locator('option', { hasText: 'trigger-sampling-request' })).toHaveCount(1);
  await expect(compose.getByTestId('app-session-declared')).toContainText(
    'the server may offer the two different tools',
  );

  await compose.getByRole('button', { name: 'Change…' }).click();
  const form = compose.getByRole('group', { name: 'App session capabilities' });
  await form.getByLabel('sampling').uncheck();
  await form.getByLabel('elicitation').uncheck();
  await form.getByLabel(/^Roots/).fill('file:///tmp/e2e-root e2e');
  await page.screenshot({ path: join(SHOTS, 'app-session-1440.png') });
  await form.getByRole('button', { name: 'Apply (new session)' }).click();
  await expect(compose.getByTestId('app-session-declared')).toContainText("The app's session declares roots (1)");
  await expect(tools.locator('option', { hasText: 'trigger-sampling-request' })).toHaveCount(0);
  await expect(tools.locator('option', { hasText: 'trigger-elicitation-request' })).toHaveCount(0);
  await tools.selectOption('get-roots-list');
  await compose.getByRole('button', { name: 'Call get-roots-list' }).click();
  await expect(compose.getByRole('status', { name: 'Answer' })).toContainText('file:///tmp/e2e-root');
  expect(problems).toEqual([]);
});

test('Edit & resend when the tool schema comes late: what was typed stays, and the form takes over', async ({
  app,
  shell,
}) => {
  test.skip(shell !== 'browser', "browser shell only: the engine's answer is held back on the UI's WebSocket");
  test.setTimeout(60_000);
  const { page, problems } = app;
  // the proxy's tool list (rules.get) answers only when released: as a slow upstream does (CI once showed it)
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.routeWebSocket(
    (url) => url.pathname === '/api',
    (ws) => {
      const server = ws.connectToServer();
      const asked = new Set<unknown>();
      ws.onMessage((frame) => {
        const sent = JSON.parse(String(frame)) as { id?: unknown; command?: string };
        if (sent.command === 'rules.get') asked.add(sent.id);
        server.send(frame);
      });
      server.onMessage(async (frame) => {
        const answer = JSON.parse(String(frame)) as { id?: unknown };
        if (asked.has(answer.id)) await released;
        ws.send(frame);
      });
    },
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  inspect = await startInspectServer();
  const row = await newProxy(page, { mode: 'proxy-only', name: 'late', upstreamUrl: inspect.url });
  await expect(row.getByText('running', { exact: true })).toBeVisible();
  agent = await connectClient((await row.locator('code.proxy-endpoint').textContent()) ?? '', { name: 'e2e-agent' });
  await agent.client.callTool({ name: 'inspect', arguments: {} });
  await page.getByRole('table', { name: 'Recent exchanges' }).getByRole('row').filter({ hasText: 'inspect' }).click();
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  await detail.getByRole('button', { name: '✎ Edit & resend' }).click();
  await expect(detail.getByText("The tool's input schema is not known here")).toBeVisible();
  await detail.getByText('Headers and _meta').click();
  const headersField = detail.getByLabel(/HTTP headers of this request/);
  await headersField.fill('Authorization: Bearer late-token');

  release();
  await expect(detail.getByRole('radio', { name: 'Form' })).toBeChecked();
  await expect(headersField).toHaveValue('Authorization: Bearer late-token');
  await detail.getByRole('button', { name: 'Send edited request' }).click();
  await expect(detail.getByRole('status').filter({ hasText: /^Sent as #\d+/ })).toContainText(
    'ok: {"authorization":"Bearer late-token"',
  );
  expect(problems).toEqual([]);
});
