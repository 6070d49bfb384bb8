import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startCustomUpstream, type CustomUpstream } from '../test/helpers/custom-upstream.js';
import { newProxy } from './inspector-helpers.js';
import { expect, test } from './shell.js';

// Tool names in other scripts and with emoji, and a 5 MB answer, as a user meets them (the app in real Chromium, a
// real SDK server and client): recorded through a UI proxy, shown as they are in the table, the filter, Compose and
// Rules, an override on an RTL name, replayed from the cassette the recording wrote.

const NAMES = ['天気_予報', 'שלום_עולם', 'تقرير_يومي', '🔧_fix', 'café_crème'];
const BIG = 5 * 1024 * 1024;
const textOf = (result: unknown): string =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? []).map((b) => b.text ?? '').join('');

let upstream: CustomUpstream;
let work: string;
test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rewind-e2e-unicode-'));
  upstream = await startCustomUpstream(() => {
    const server = new Server({ name: 'scripts', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: NAMES.map((name) => ({
        name,
        description: `the ${name} tool`,
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const { name, arguments: args } = request.params;
      if (name === '天気_予報') return { content: [{ type: 'text', text: 'あ'.repeat(BIG / 3) }] }; // 5 MB of UTF-8
      return { content: [{ type: 'text', text: `${name} → ${String(args?.q ?? '')}` }] };
    });
    return server;
  });
});
test.afterAll(async () => {
  await upstream?.close();
  rmSync(work, { recursive: true, force: true });
});

test('tools named in Japanese, Hebrew, Arabic and with emoji, and a 5 MB answer: recorded, shown, filtered, overridden, replayed', async ({
  app,
}) => {
  test.setTimeout(120_000);
  const { page, problems } = app;
  const cassette = join(work, 'recorded');
  const clients: ConnectedClient[] = [];
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.open();
    const row = await newProxy(page, {
      mode: 'record',
      name: 'scripts',
      upstreamUrl: upstream.url,
      cacheDir: cassette,
    });
    await expect(row.getByText('running')).toBeVisible();
    const agent = await connectClient((await row.locator('code').textContent()) ?? '');
    clients.push(agent);
    expect((await agent.client.listTools()).tools.map((t) => t.name)).toEqual(NAMES);
    for (const name of NAMES.slice(1))
      expect(textOf(await agent.client.callTool({ name, arguments: { q: 'שאלה ✓' } }))).toBe(`${name} → שאלה ✓`);
    const big = textOf(await agent.client.callTool({ name: '天気_予報', arguments: { q: 'Tokyo' } }));
    expect(big.length).toBe(Math.floor(BIG / 3)); // the client gets all of it, not the timeline's truncated copy

    // every name in the table as it is; the Tool menu and the query find each one
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const calls = table.getByRole('row').filter({ hasText: 'tools/call' });
    await expect(calls).toHaveCount(NAMES.length);
    for (const name of NAMES) await expect(calls.locator('td', { hasText: name })).toHaveCount(1);
    await page.screenshot({ path: test.info().outputPath('unicode-names-1440.png') }); // kept with the run's output
    const filters = page.getByRole('search', { name: 'Filter exchanges' });
    await filters.getByLabel('Tool').selectOption({ label: 'שלום_עולם' });
    await expect(calls).toHaveCount(1);
    await filters.getByLabel('Tool').selectOption({ index: 0 });
    await filters.getByLabel('Search').fill('tool:🔧_fix');
    await expect(calls).toHaveCount(1);
    await expect(calls).toContainText('🔧_fix');
    await filters.getByLabel('Search').fill('tool:تقرير*');
    await expect(calls).toHaveCount(1);
    await filters.getByLabel('Search').fill('has:truncated');
    await expect(calls).toHaveCount(1);
    await expect(calls).toContainText('天気_予報');

    // the 5 MB answer: its detail opens, its Content says its size and shows its start
    await calls.click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    await expect(detail.locator('.tl-detail-title')).toContainText('天気_予報');
    await detail.getByRole('tab', { name: /^Content/ }).click();
    await expect(detail.getByRole('tabpanel')).toContainText('truncated on the timeline: Load full body');
    await detail.getByRole('button', { name: 'Load full body' }).click();
    await expect(detail.getByRole('tabpanel')).toContainText('あああ', { timeout: 20_000 });
    await expect(detail.getByRole('tabpanel')).toContainText(
      `Showing the first 100,000 of ${Math.floor(BIG / 3).toLocaleString('en')} characters`,
    );
    await filters.getByLabel('Search').fill('');

    // Compose lists them as the proxy does, and calls the emoji one
    await page.getByRole('button', { name: 'Compose a call through scripts' }).click();
    const compose = page.getByRole('complementary', { name: 'Compose' });
    await expect(compose.getByLabel('Tool').locator('option')).toHaveText(NAMES);
    await compose.getByLabel('Tool').selectOption('🔧_fix');
    await compose.getByRole('group', { name: 'Arguments of 🔧_fix' }).getByLabel('q').fill('مرحبا');
    await compose.getByRole('button', { name: 'Call 🔧_fix' }).click();
    await expect(compose.getByRole('status', { name: 'Answer' })).toContainText('🔧_fix → مرحبا');
    await compose.getByRole('button', { name: 'Close compose' }).click();

    // an override on the Hebrew tool, from the Rules view: the agent gets it
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    const tools = page.getByRole('region', { name: 'Tools' });
    await expect(tools.locator('.tool-name')).toHaveText(NAMES);
    await tools.getByTestId('tool-שלום_עולם').click();
    const editor = page.getByRole('region', { name: 'Rule for שלום_עולם' });
    await editor.getByRole('radio', { name: 'override' }).check();
    await editor.getByLabel('Text', { exact: true }).fill('נעקף ✓');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect(page.getByTestId('rules-notified')).toContainText('Applied');
    expect(textOf(await agent.client.callTool({ name: 'שלום_עולם', arguments: {} }))).toBe('נעקף ✓');

    // the recording's files have safe names, and a replay proxy on them answers each name as recorded
    const files = readdirSync(cassette).filter((f) => / tools_call_/.test(f) && !/\.(req|res|res-head)\.json$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(NAMES.length);
    for (const f of files) {
      expect(f).not.toMatch(/[/\\:*?"<>|]/); // no character a file name may not hold on Windows
      expect([...f].every((c) => c.charCodeAt(0) >= 0x20)).toBe(true);
    }
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Timeline' }).click();
    const replay = await newProxy(page, { mode: 'replay', name: 'scripts-replay', cacheDir: cassette });
    await expect(replay.getByText('running')).toBeVisible();
    const ci = await connectClient((await replay.locator('code').textContent()) ?? '');
    clients.push(ci);
    for (const name of ['تقرير_يومي', '🔧_fix', 'café_crème'])
      expect(textOf(await ci.client.callTool({ name, arguments: { q: 'שאלה ✓' } }))).toBe(`${name} → שאלה ✓`);
    expect(textOf(await ci.client.callTool({ name: '天気_予報', arguments: { q: 'Tokyo' } })).length).toBe(
      Math.floor(BIG / 3),
    );
    expect(problems).toEqual([]);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
  }
});

test('a 5 MB answer in a non-Latin script: the Size column says its bytes', async ({ app }) => {
  const { page } = app;
  await app.open();
  const row = await newProxy(page, { mode: 'proxy-only', name: 'sizes', upstreamUrl: upstream.url });
  const agent = await connectClient((await row.locator('code').textContent()) ?? '');
  try {
    await agent.client.callTool({ name: '天気_予報', arguments: {} });
    const call = page
      .getByRole('table', { name: 'Recent exchanges' })
      .getByRole('row')
      .filter({ hasText: '天気_予報' });
    await expect(call).toContainText('/ 5.0 MB'); // 'あ' is 3 bytes in UTF-8: 1,747,626 of them are 5,242,878 bytes
  } finally {
    await agent.close();
  }
});
