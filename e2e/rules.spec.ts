import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { newProxy } from './inspector-helpers.js';
import { expect, ROOT, test } from './shell.js';

// The Rules view in the app (e2e/shell.ts: `mcp-rewind ui` in real Chromium, or the Electron app), the real engine, a
// real SDK upstream and a real SDK client. No stubbed window APIs.

const textOf = (result: unknown): string =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');

let upstream: SdkServerHandle;
let mcp: ConnectedClient | undefined;

test.beforeAll(async () => {
  upstream = await startSdkServer();
});
test.afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
});

test('Rules view: override and inject rules, validated as you type, previewed on a recorded result, applied live', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.open();

  // a proxy from the Timeline view's form, in front of the real SDK server
  await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption('proxy-only');
  await form.getByLabel('Upstream URL').fill(upstream.url);
  await form.getByLabel('Name').fill('rules-e2e');
  await form.getByRole('button', { name: 'Create proxy' }).click();
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: 'rules-e2e' });
  await expect(row.getByText('running')).toBeVisible();
  const endpoint = (await row.locator('code').textContent()) ?? '';

  // the client calls echo once: the recorded result the inject preview renders against
  mcp = await connectClient(endpoint);
  const before = await mcp.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  expect(textOf(before)).toBe('echo: hello');

  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Rules');
  const tools = page.getByRole('region', { name: 'Tools' });
  await expect(tools.getByTestId('tool-echo')).toContainText('upstream');
  await expect(tools.getByTestId('tool-add')).toContainText('relay');

  // override for add; a bad rule first: text AND content blocks
  await tools.getByTestId('tool-add').click();
  const addEditor = page.getByRole('region', { name: 'Rule for add' });
  await addEditor.getByRole('radio', { name: 'override' }).check();
  await addEditor.getByLabel('Text', { exact: true }).fill('forty-two');
  await addEditor.getByLabel('Content blocks (JSON)').fill('[{ "type": "text", "text": "also" }]');
  await expect(addEditor.getByRole('alert').first()).toContainText(
    'behavior.response: give either text or content, not both',
  );
  const apply = page.getByRole('button', { name: 'Apply', exact: true });
  await expect(apply).toBeDisabled();
  await expect(page.getByTestId('rules-invalid')).toContainText('tools.0.behavior.response');
  await addEditor.getByLabel('Content blocks (JSON)').fill('[{ "type": "text"');
  await expect(addEditor.getByRole('alert').first()).toContainText('behavior.response.content: not valid JSON');
  await addEditor.getByLabel('Content blocks (JSON)').fill('');
  await addEditor.getByLabel('Delay (s)').fill('soon');
  await expect(addEditor.getByRole('alert').first()).toContainText('behavior.response.delay_s');
  await expect(apply).toBeDisabled();
  await addEditor.getByLabel('Delay (s)').fill('0.1');
  await addEditor.getByLabel('Structured content (JSON)').fill('{ "sum": 42 }');
  await expect(addEditor.getByRole('alert')).toHaveCount(0);
  await expect(apply).toBeEnabled();

  // inject for echo, previewed live against the recorded echo result
  await tools.getByTestId('tool-echo').click();
  const echoEditor = page.getByRole('region', { name: 'Rule for echo' });
  await echoEditor.getByRole('radio', { name: 'inject' }).check();
  const template = echoEditor.getByLabel('Template', { exact: true });
  await template.fill('{original_text} [tampered ');
  await echoEditor.getByRole('button', { name: '{args.text}' }).click(); // the chip, inserted at the cursor
  await template.press('End');
  await template.pressSequentially(']');
  await expect(template).toHaveValue('{original_text} [tampered {args.text}]');
  await expect(echoEditor.getByTestId('inject-preview')).toHaveText('echo: hello [tampered hello]');

  // a tool never called has nothing to preview against
  await tools.getByTestId('tool-counter').click();
  const counterEditor = page.getByRole('region', { name: 'Rule for counter' });
  await counterEditor.getByRole('radio', { name: 'inject' }).check();
  await expect(counterEditor.getByText('no recorded result yet — call the tool once')).toBeVisible();
  await counterEditor.getByRole('button', { name: 'Remove rule' }).click();
  await expect(tools.getByTestId('tool-counter')).not.toContainText('rule');

  // the whole file, as a --rules file would hold it
  await expect(page.getByTestId('rules-json')).toContainText('"template": "{original_text} [tampered {args.text}]"');

  await tools.getByTestId('tool-echo').click();
  await apply.click();
  await expect(page.getByTestId('rules-notified')).toHaveText('Applied: sent tools/list_changed to 1 client');
  await expect(tools.getByTestId('tool-echo')).toContainText('inject');
  await expect(tools.getByTestId('tool-add')).toContainText('override');
  await expect(page.getByTestId('inject-preview')).toHaveText('echo: hello [tampered hello]');
  await app.screenshot(join(ROOT, 'docs/screenshots/rules.png'));

  // the client hears about it, and its next calls get the rules' answers
  await expect
    .poll(() => mcp!.notifications.some((n) => n.method === 'notifications/tools/list_changed'), { timeout: 10_000 })
    .toBe(true);
  const added = await mcp.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  expect(textOf(added)).toBe('forty-two');
  expect(added.structuredContent).toEqual({ sum: 42 });
  const echoed = await mcp.client.callTool({ name: 'echo', arguments: { text: 'again' } });
  expect(textOf(echoed)).toBe('echo: again [tampered again]');
  expect(upstream.calls.map((c) => c.tool)).toEqual(['echo', 'echo']); // the override never reached the upstream

  // a synthetic tool, and passthrough off: the upstream tools without a rule disappear
  await page.getByLabel('New tool name').fill('fake_admin');
  await page.getByRole('button', { name: 'Add tool' }).click();
  const fakeEditor = page.getByRole('region', { name: 'Rule for fake_admin' });
  await fakeEditor.getByLabel('Text', { exact: true }).fill('denied');
  await fakeEditor.getByLabel(/is_error/).check();
  await fakeEditor.getByLabel('input_schema', { exact: true }).fill('{ "type": "array" }');
  await expect(fakeEditor.getByRole('alert').first()).toContainText('input_schema.type');
  await expect(apply).toBeDisabled();
  await fakeEditor
    .getByLabel('input_schema', { exact: true })
    .fill('{ "type": "object", "properties": { "cmd": { "type": "string" } } }');
  await tools.getByLabel(/Hide upstream tools without a rule/).check();
  await expect(tools.getByTestId('tool-counter')).toContainText('hidden');
  await apply.click();
  await expect(page.getByTestId('rules-notified')).toContainText('to 1 client');
  await expect(tools.getByTestId('tool-fake_admin')).toContainText('synthetic');
  const listed = await mcp.client.listTools();
  expect(listed.tools.map((t) => t.name).sort()).toEqual(['add', 'echo', 'fake_admin']);
  const denied = await mcp.client.callTool({ name: 'fake_admin', arguments: { cmd: 'rm' } });
  expect(denied.isError).toBe(true);
  expect(textOf(denied)).toBe('denied');

  expect(problems).toEqual([]);
});

test('Rules view: Hide one tool with one click — a real client no longer lists it and its call is refused; Show brings it back', async ({
  app,
}) => {
  test.setTimeout(60_000);
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.open();
  const row = await newProxy(page, { mode: 'proxy-only', name: 'hide-e2e', upstreamUrl: upstream.url });
  await expect(row.getByText('running')).toBeVisible();
  const client = await connectClient((await row.locator('code').textContent()) ?? '');
  try {
    const before = (await client.client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('counter');
    const upstreamCalls = upstream.calls.length;

    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rules' }).click();
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByRole('button', { name: 'Hide counter' }).click();
    await expect(tools.getByTestId('tool-counter')).toContainText('hidden');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect(page.getByTestId('rules-notified')).toHaveText('Applied: sent tools/list_changed to 1 client');
    await expect
      .poll(() => client.notifications.some((n) => n.method === 'notifications/tools/list_changed'))
      .toBe(true);
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(before.filter((n) => n !== 'counter'));
    const refused = await client.client.callTool({ name: 'counter', arguments: {} }).then(
      (result) => ({ result }),
      (error: Error) => ({ error }),
    );
    // refused either as a JSON-RPC error or as a tool error, never answered by the upstream
    const said = 'error' in refused ? refused.error.message : textOf(refused.result);
    expect('error' in refused || refused.result.isError === true).toBe(true);
    expect(said).toMatch(/counter/);
    expect(upstream.calls.length).toBe(upstreamCalls);

    await tools.getByRole('button', { name: 'Show counter' }).click();
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(async () => (await client.client.listTools()).tools.map((t) => t.name)).toEqual(before);
    expect(problems).toEqual([]);
  } finally {
    await client.close();
  }
});
