import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from '@playwright/test';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startEverything, type EverythingHttpHandle } from '../test/fixtures/everything.js';
import { messagesOfBody } from '../src/main/engine/cassette/served-body.js';
import { expect, ROOT, test } from './shell.js';

// The inspector's verbs (issue 13) against the app as a user starts it (`mcp-rewind ui` in real Chromium), the real
// engine and a real third-party upstream (@modelcontextprotocol/server-everything). No stubbed window APIs.

const SHOTS = join(ROOT, 'docs/screenshots');
const run = promisify(execFile);

async function newProxy(page: Page, fields: { mode: string; name: string; upstreamUrl: string }): Promise<Locator> {
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption(fields.mode);
  await form.getByLabel('Upstream URL').fill(fields.upstreamUrl);
  await form.getByLabel('Name').fill(fields.name);
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 20_000 });
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: `Proxy ${fields.name}` });
  await expect(row.getByText('running', { exact: true })).toBeVisible({ timeout: 20_000 });
  return row;
}

/** two proxies in a chain: `rec` (record) → `upstream-watch` (proxy-only) → server-everything; an agent on `rec` */
async function chain(
  page: Page,
  everything: EverythingHttpHandle,
): Promise<{ agent: ConnectedClient; recUrl: string }> {
  const watch = await newProxy(page, { mode: 'proxy-only', name: 'upstream-watch', upstreamUrl: everything.url });
  const watchUrl = (await watch.locator('code.proxy-endpoint').textContent()) as string;
  const rec = await newProxy(page, { mode: 'record', name: 'rec', upstreamUrl: watchUrl });
  const recUrl = (await rec.locator('code.proxy-endpoint').textContent()) as string;
  const agent = await connectClient(recUrl, { name: 'e2e-agent' });
  return { agent, recUrl };
}

const filters = (page: Page): Locator => page.getByRole('search', { name: 'Filter exchanges' });
const table = (page: Page): Locator => page.getByRole('table', { name: 'Recent exchanges' });
const detail = (page: Page): Locator => page.getByRole('complementary', { name: 'Exchange detail' });
const echoRows = (page: Page): Locator =>
  table(page).getByRole('row').filter({ hasText: 'tools/call' }).filter({ hasText: 'echo' });

/** searches the detail's Request or Response tree; answers its hit count ("1 of 1") */
async function found(page: Page, tab: 'Request' | 'Response', text: string): Promise<Locator> {
  await detail(page).getByRole('tab', { name: tab }).click();
  await detail(page)
    .getByRole('searchbox', { name: `Search in ${tab}` })
    .fill(text);
  return detail(page).getByTestId('json-hits');
}

let everything: EverythingHttpHandle | undefined;
let agent: ConnectedClient | undefined;
test.afterEach(async () => {
  await agent?.close().catch(() => {});
  agent = undefined;
  await everything?.close();
  everything = undefined;
});

test('resend a tools/call (a second upstream call, linked to its original), then edit and resend with new arguments', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  everything = await startEverything('streamableHttp');
  ({ agent } = await chain(page, everything));
  await agent.client.callTool({ name: 'echo', arguments: { message: 'first' } });

  // the upstream saw one echo: the watching proxy's traffic says so
  await filters(page).getByLabel('Proxy').selectOption({ label: 'upstream-watch' });
  await expect(echoRows(page)).toHaveCount(1);
  await filters(page).getByLabel('Proxy').selectOption({ label: 'rec' });
  await echoRows(page).click();
  const actions = detail(page).getByRole('toolbar', { name: 'Exchange actions' });
  const originalSeq = await table(page).locator('tr[aria-selected="true"] td').first().textContent();

  await actions.getByRole('button', { name: '↻ Resend' }).click();
  // the new exchange is selected, beside its original: identical answers, side by side
  await expect(echoRows(page)).toHaveCount(2);
  await expect(table(page).locator('tr[aria-selected="true"]')).toContainText(`resent from #${originalSeq}`);
  await expect(detail(page).getByTestId('diff-summary')).toHaveText(
    new RegExp(`^#${originalSeq} tools/call echo \\(rec\\) → #\\d+: identical$`),
  );
  await expect(detail(page).locator('.cm-mergeView')).toBeVisible();
  await detail(page).getByRole('tab', { name: 'Overview' }).click();
  await expect(detail(page).getByText(`↻ resent from #${originalSeq}`)).toBeVisible();
  await app.screenshot(join(SHOTS, 'verbs-resend-1280.png'));
  // a second upstream call, on a session of the app's own (the agent's session untouched)
  await filters(page).getByLabel('Proxy').selectOption({ label: 'upstream-watch' });
  await expect(echoRows(page)).toHaveCount(2);
  expect(await agent.client.callTool({ name: 'echo', arguments: { message: 'still mine' } })).toMatchObject({
    content: [{ text: 'Echo: still mine' }],
  });

  // edit and resend: a form from the tool's input schema, new arguments, a new result
  await filters(page).getByLabel('Proxy').selectOption({ label: 'rec' });
  await echoRows(page).first().click(); // the agent's own call
  await detail(page).getByRole('button', { name: '✎ Edit & resend' }).click();
  const form = detail(page).getByRole('group', { name: 'Arguments of echo' });
  await expect(form.getByLabel('message')).toHaveValue('first');
  await form.getByLabel('message').fill('edited by hand');
  await expect(form.getByRole('alert')).toHaveCount(0);
  await app.screenshot(join(SHOTS, 'verbs-edit-1280.png'));
  await detail(page).getByRole('button', { name: 'Send edited request' }).click();
  const sent = detail(page)
    .getByRole('status')
    .filter({ hasText: /^Sent as #\d+/ });
  await expect(sent).toContainText('ok: Echo: edited by hand');
  await sent.getByRole('button', { name: /^Open #\d+$/ }).click();
  await expect(await found(page, 'Response', 'Echo: edited by hand')).toHaveText('1 of 1');
  await filters(page).getByLabel('Proxy').selectOption({ label: 'upstream-watch' });
  await filters(page).getByLabel('Search').fill('edited by hand');
  await expect(echoRows(page)).toHaveCount(1); // it reached the upstream
  expect(problems).toEqual([]);
});

test('diff two exchanges: the changed path; copy as curl runs against the proxy and gets the same answer', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await app.open();
  everything = await startEverything('streamableHttp');
  ({ agent } = await chain(page, everything));
  await agent.client.callTool({ name: 'echo', arguments: { message: 'sunny\nwarm' } });
  await agent.client.callTool({ name: 'echo', arguments: { message: 'sunny\nwindy' } });
  await filters(page).getByLabel('Proxy').selectOption({ label: 'rec' });
  await expect(echoRows(page)).toHaveCount(2);

  await echoRows(page).nth(0).click(); // warm
  await detail(page).getByRole('button', { name: '⇄ Compare…' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Click the exchange to compare with' })).toBeVisible();
  await echoRows(page).nth(1).click(); // windy
  const changes = detail(page).getByRole('list', { name: 'Changes' });
  await expect(detail(page).getByTestId('diff-summary')).toContainText('1 changed');
  await expect(changes.getByRole('listitem')).toHaveCount(1);
  await expect(changes.getByRole('listitem')).toContainText('changed');
  await expect(changes.locator('.diff-path')).toHaveText('result.content[0].text');
  await expect(changes.locator('.line.same')).toHaveText('  Echo: sunny\n'); // the line both have
  await expect(changes.locator('.line.removed')).toHaveText('- windy\n');
  await expect(changes.locator('.line.added')).toHaveText('+ warm\n');
  await detail(page).getByRole('tablist', { name: 'Part to compare' }).getByRole('tab', { name: 'Request' }).click();
  await expect(changes.locator('.diff-path')).toHaveText('params.arguments.message');
  await app.screenshot(join(SHOTS, 'verbs-diff-1440.png'));

  // copy as curl: a script with its own session; run it here, from the test, against the proxy
  await detail(page).getByRole('button', { name: 'Copy as ▾' }).click();
  await page.getByRole('menuitem', { name: /^curl/ }).click();
  const script = await page.evaluate(() => navigator.clipboard.readText());
  expect(script).toContain('#!/bin/sh');
  const { stdout } = await run('sh', ['-c', script], { timeout: 30_000 });
  const answer = messagesOfBody(stdout).find((m) => 'id' in m && m.id === 1 && 'result' in m) as { result: unknown };
  await detail(page).getByRole('button', { name: 'Copy as ▾' }).click();
  await page.getByRole('menuitem', { name: /^Response as JSON/ }).click();
  const shown = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { result: unknown };
  expect(answer.result).toEqual(shown.result);
  expect(answer.result).toEqual({ content: [{ type: 'text', text: 'Echo: sunny\nwarm' }] });
  expect(problems).toEqual([]);
});

test('compose a call to a tool with a nested-object schema from the generated form', async ({ app }) => {
  const { page, problems } = app;
  for (const size of [
    { width: 1280, height: 720 },
    { width: 1440, height: 900 },
  ]) {
    await page.setViewportSize(size);
    if (size.width === 1280) {
      await app.open();
      await page.getByRole('button', { name: 'Run demo' }).click();
      await expect(page.getByRole('list', { name: 'Proxy list' }).getByText('running', { exact: true })).toBeVisible({
        timeout: 20_000,
      });
    }
    await page.getByRole('button', { name: 'Compose a call through demo' }).click();
    const compose = page.getByRole('complementary', { name: 'Compose' });
    await compose.getByLabel('Tool').selectOption('schedule');
    const form = compose.getByRole('group', { name: 'Arguments of schedule' });
    await expect(form.getByLabel('priority')).toHaveValue('"normal"'); // the schema's default
    await form.getByLabel('title').fill(`Design review ${size.width}`);
    const when = form.getByRole('group', { name: 'when *' });
    await when.getByLabel('date').fill('2026-03-02');
    await when.getByLabel('durationMin').fill('45');
    const attendees = form.getByRole('group', { name: 'attendees' });
    await attendees.getByRole('button', { name: '+ Add to attendees' }).click();
    await attendees.getByRole('button', { name: '+ Add to attendees' }).click();
    await attendees.getByLabel('name').nth(0).fill('Ada');
    await attendees.getByLabel('name').nth(1).fill('Grace');
    await attendees.getByLabel('email').nth(1).fill('not an email');
    await form.getByLabel('priority').selectOption({ label: 'high' });
    await form.getByLabel('online').check();
    // the engine's check (ajv) flags the e-mail beside attendees[1].email, and nothing else
    await expect(form.getByRole('alert').filter({ hasText: 'email: must match format "email"' })).toHaveCount(1);
    for (const text of await form.getByRole('alert').allTextContents()) expect(text).toMatch(/^email: /);
    await app.screenshot(join(SHOTS, `verbs-compose-${size.width}.png`));
    await attendees.getByLabel('email').nth(1).fill('grace@example.com');
    await expect(form.getByRole('alert')).toHaveCount(0);
    await compose.getByRole('button', { name: 'Call schedule' }).click();
    const answer = compose.getByRole('status', { name: 'Answer' });
    await expect(answer).toContainText(
      `ok: Booked “Design review ${size.width}” on 2026-03-02 for 45 min with Ada, Grace (high priority, online)`,
    );
    await answer.getByRole('button', { name: /^Open #\d+ in the timeline$/ }).click();
    await expect(compose).toHaveCount(0);
    await expect(await found(page, 'Request', 'grace@example.com')).toHaveText('1 of 1');
  }
  expect(problems).toEqual([]);
});

test('save the timeline as HAR, open it again (read-only, searchable, resendable); a sampling request asks the user', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open();
  everything = await startEverything('streamableHttp');
  ({ agent } = await chain(page, everything));
  await agent.client.callTool({ name: 'echo', arguments: { message: 'saved one' } });
  await agent.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } });
  await filters(page).getByLabel('Proxy').selectOption({ label: 'rec' });
  await expect(table(page).getByRole('row').filter({ hasText: 'get-sum' })).toHaveCount(1);
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-verbs-'));
  try {
    const har = join(dir, 'rec.har');
    await page.getByRole('button', { name: 'Save…' }).click();
    const save = page.getByRole('form', { name: 'Save exchanges' });
    await save.getByLabel('The ones the filter shows').check();
    await save.getByRole('textbox', { name: 'File' }).fill(har);
    await app.screenshot(join(SHOTS, 'verbs-save-1280.png'));
    await save.getByRole('button', { name: 'Save' }).click();
    await expect(save.getByRole('status')).toContainText(`to ${har}`);
    await expect(save.getByRole('status')).toContainText('redacted');
    await save.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Open…' }).click();
    const open = page.getByRole('form', { name: 'Open into the timeline' });
    await open.getByLabel('Path').fill(join(dir, 'nope.har'));
    await open.getByRole('button', { name: 'Open' }).click();
    await expect(open.getByRole('alert')).toContainText('no such file or folder');
    await open.getByLabel('Path').fill(har);
    await open.getByRole('button', { name: 'Open' }).click();
    await expect(open).toBeHidden();
    const file = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'File rec.har' });
    await expect(file).toContainText('HAR');
    // the filter shows the file's exchanges: searchable like live ones
    await expect(filters(page).getByLabel('Proxy')).toHaveValue(/^s\d+$/);
    await expect(table(page).getByRole('row').filter({ hasText: 'get-sum' })).toHaveCount(1);
    await filters(page).getByLabel('Search').fill('saved one');
    await expect(echoRows(page)).toHaveCount(1);
    await echoRows(page).click();
    await expect(await found(page, 'Response', 'Echo: saved one')).toHaveText('1 of 1');
    await app.screenshot(join(SHOTS, 'verbs-open-1280.png'));
    // resendable through a running proxy of choice
    await detail(page).getByRole('button', { name: '✎ Edit & resend' }).click();
    await detail(page).getByLabel('Send through proxy').selectOption({ label: 'upstream-watch' });
    await detail(page).getByRole('button', { name: 'Send edited request' }).click();
    await expect(
      detail(page)
        .getByRole('status')
        .filter({ hasText: /^Sent as/ }),
    ).toContainText('Echo: saved one');
    await filters(page).getByRole('button', { name: 'Reset filters' }).click();

    // a server→client request on the app's own session: the user answers it
    await page.getByRole('button', { name: 'Compose a call through rec' }).click();
    const compose = page.getByRole('complementary', { name: 'Compose' });
    await compose.getByLabel('Tool').selectOption('trigger-sampling-request');
    await compose
      .getByRole('group', { name: 'Arguments of trigger-sampling-request' })
      .getByLabel('prompt')
      .fill('Name a colour');
    await compose.getByRole('button', { name: 'Call trigger-sampling-request' }).click();
    const question = page.getByRole('dialog', { name: 'The server asks' });
    await expect(question).toContainText('Sampling request from rec');
    await expect(question).toContainText('Name a colour');
    await question.getByLabel('Sampling answer').fill('Ultramarine');
    await app.screenshot(join(SHOTS, 'verbs-question-1280.png'));
    await question.getByRole('button', { name: 'Send answer' }).click();
    await expect(question).toBeHidden();
    const answer = compose.getByRole('status', { name: 'Answer' });
    await expect(answer).toContainText('ok: LLM sampling result');
    await answer.getByRole('button', { name: /^Open #\d+ in the timeline$/ }).click();
    await expect(await found(page, 'Response', 'Ultramarine')).toHaveText('1 of 1');
    await detail(page)
      .getByRole('tab', { name: /^Stream/ })
      .click();
    await expect(detail(page).getByRole('list', { name: 'Streamed messages' })).toContainText('sampling/createMessage');
    await file.getByRole('button', { name: 'Close rec.har' }).click();
    await expect(file).toHaveCount(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(problems).toEqual([]);
});

test('pin an exchange with a note: it survives Clear and a restart of the UI; the table groups by session', async ({
  app,
}) => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open();
  everything = await startEverything('streamableHttp');
  ({ agent } = await chain(page, everything));
  await agent.client.callTool({ name: 'echo', arguments: { message: 'keep me' } });
  await filters(page).getByLabel('Proxy').selectOption({ label: 'rec' });
  await echoRows(page).click();
  await detail(page).getByRole('button', { name: '☆ Pin' }).click();
  await expect(detail(page).getByRole('button', { name: '★ Pinned' })).toBeVisible();
  await detail(page).getByRole('button', { name: 'Note…' }).click();
  await detail(page).getByLabel('Note').fill('the answer we expect');
  await detail(page).getByLabel('Note').press('Enter');
  await expect(table(page).locator('tr.tl-row.pinned')).toContainText('“the answer we expect”');
  // group by session: the agent's session has a head naming its client
  await page.getByRole('button', { name: 'Group by session' }).click();
  await expect(table(page).locator('tr.tl-group').filter({ hasText: 'e2e-agent' })).toHaveCount(1);
  await page.getByRole('button', { name: 'Group by session' }).click();
  await filters(page).getByRole('button', { name: 'Reset filters' }).click();
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect(table(page).getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(1); // the pinned one stays

  await app.restart();
  await page.reload();
  await expect(echoRows(page)).toHaveCount(1, { timeout: 15_000 });
  await expect(table(page).locator('tr.tl-row.pinned')).toContainText('“the answer we expect”');
  await page.getByRole('button', { name: '★ Pinned only' }).click();
  await expect(table(page).getByRole('row').filter({ hasText: 'tools/call' })).toHaveCount(1);
  expect(problems.filter((p) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(p))).toEqual([]); // the restart's own
});
