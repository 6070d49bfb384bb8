import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { newProxy } from './inspector-helpers.js';
import { expect, test } from './shell.js';

// Payloads over the WebSocket's 1 MiB frame from the browser UI (issue 25 item 2), in real Chromium against the
// built CLI (`mcp-rewind ui`), a real SDK upstream and a real client: a 4 MB Edit & resend reaches the server and its
// 4 MB answer comes back; a 5 MB one is refused before sending with the proxy's body limit as its reason; a 2 MB
// cassette entry is saved to its file. Before, each cut the connection ("… may or may not have run").

let upstream: SdkServerHandle | undefined;
let agent: ConnectedClient | undefined;
let cassette: string | undefined;
test.afterEach(async () => {
  await agent?.close().catch(() => {});
  await upstream?.close();
  if (cassette) rmSync(cassette, { recursive: true, force: true });
  agent = upstream = cassette = undefined;
});

async function recordOneEcho(app: { page: import('@playwright/test').Page; open(): Promise<void> }): Promise<void> {
  upstream = await startSdkServer();
  cassette = mkdtempSync(join(tmpdir(), 'rewind-e2e-payload-'));
  await app.page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  const row = await newProxy(app.page, { mode: 'record', name: 'big', upstreamUrl: upstream.url, cacheDir: cassette });
  await expect(row.getByText('running', { exact: true })).toBeVisible();
  agent = await connectClient((await row.locator('code.proxy-endpoint').textContent()) ?? '');
  await agent.client.callTool({ name: 'echo', arguments: { text: 'small' } });
}

test('Edit & resend: 4 MB reaches the server and its answer comes back; 5 MB is refused with the body limit', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  await recordOneEcho(app);
  const table = page.getByRole('table', { name: 'Recent exchanges' });
  await table.getByRole('row').filter({ hasText: 'echo' }).click();
  const detail = page.getByRole('complementary', { name: 'Exchange detail' });
  await detail.getByRole('button', { name: '✎ Edit & resend' }).click();
  const form = detail.getByRole('group', { name: 'Arguments of echo' });
  const big = `head ${'0123456789'.repeat(400_000)} tail`;
  await form.getByLabel('text').fill(big);
  await detail.getByRole('button', { name: 'Send edited request' }).click();
  const sent = detail.getByRole('status').filter({ hasText: /^Sent as #\d+/ });
  await expect(sent).toContainText('ok: echo: head 0123456789', { timeout: 30_000 });
  const calls = upstream!.calls.filter((c) => c.tool === 'echo');
  expect(calls).toHaveLength(2);
  expect((calls[1].args as { text: string }).text).toBe(big);

  await form.getByLabel('text').fill('x'.repeat(5 * 1024 * 1024));
  await detail.getByRole('button', { name: 'Send edited request' }).click();
  await expect(detail.getByRole('alert')).toHaveText(
    /not sent: the request is 5\.0 MB, over the 4 MB body limit of the proxy/,
  );
  expect(upstream!.calls.filter((c) => c.tool === 'echo')).toHaveLength(2);
  expect(problems).toEqual([]);
});

test('a 2 MB cassette entry is saved from the Cassettes view and its file written', async ({ app }) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  await recordOneEcho(app);
  const dir = cassette!;
  const isEcho = (f: string): boolean => / tools_call_echo_[0-9a-f]+\.json$/.test(f);
  await expect.poll(() => readdirSync(dir).some(isEcho)).toBe(true);
  const file = readdirSync(dir).find(isEcho) as string;
  const entry = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { result: { content: Array<{ text: string }> } };

  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Cassettes' }).click();
  await page.getByRole('list', { name: 'Proxy cassette folders' }).getByRole('button', { name: /big/ }).click();
  await page.getByRole('table', { name: 'Cassette entries' }).getByRole('row').filter({ hasText: 'echo' }).click();
  const editor = page.getByRole('region', { name: 'Entry editor' });
  const content = editor.getByRole('textbox', { name: 'Entry JSON' });
  await expect(content).toContainText('echo: small');
  entry.result.content[0].text = `two megabytes ${'abcdefghij'.repeat(210_000)}`;
  await content.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify(entry));
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(editor.getByTestId('entry-status')).toHaveText('Saved: the next replayed call gets it', {
    timeout: 30_000,
  });
  expect(JSON.parse(readFileSync(join(dir, file), 'utf8'))).toEqual(entry);
  expect(readFileSync(join(dir, file)).length).toBeGreaterThan(2_000_000);
  expect(problems).toEqual([]);
});
