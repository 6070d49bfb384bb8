import type { Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../test/fixtures/sdk-server.js';
import { expect, ROOT, test } from './shell.js';

// The Cassettes and Export views against the real engine in the app (e2e/shell.ts: `mcp-rewind ui` in real Chromium,
// or the Electron app), a real SDK upstream and real SDK clients; the export is replayed by the CLI itself. No stubbed
// window APIs.
const CLI = join(ROOT, 'bin/mcp-rewind.js');

interface Child {
  child: ChildProcess;
  output: () => string;
}

/** Spawns the CLI and waits until its output matches `ready`; answers the first group. */
async function spawnCli(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<Child & { match: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const match = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mcp-rewind ${args.join(' ')}: nothing matched ${ready} within 15 s:\n${out}`)),
      15_000,
    );
    const look = (chunk: Buffer): void => {
      out += chunk.toString();
      const found = ready.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mcp-rewind ${args.join(' ')} exited (${code}):\n${out}`));
    });
  });
  return { child, match, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const textOf = (result: unknown): string =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');

let work: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rewind-e2e-cassettes-'));
});
test.afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
});

async function createProxy(
  page: Page,
  fields: { mode: string; name: string; cacheDir: string; upstreamUrl?: string },
): Promise<string> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Timeline' }).click();
  await page.getByRole('button', { name: 'New proxy', exact: true }).click(); // the New proxy dialog
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption(fields.mode);
  if (fields.upstreamUrl) await form.getByLabel('Upstream URL').fill(fields.upstreamUrl);
  await form.getByLabel('Cassette folder').fill(fields.cacheDir);
  await form.getByLabel('Name').fill(fields.name);
  await form.getByRole('button', { name: 'Create proxy' }).click();
  const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem').filter({ hasText: fields.name });
  await expect(row.getByText('running')).toBeVisible();
  return (await row.locator('code').first().textContent()) ?? '';
}

test('record, hand-edit an entry in the Cassettes view, replay the edit, export a single file and replay it with the CLI', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const cassette = join(work, 'recorded');
  const clients: ConnectedClient[] = [];
  let cli: Child | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    const nav = page.getByRole('navigation', { name: 'Views' });

    // record through a proxy created in the UI
    const recorder = await createProxy(page, {
      mode: 'record',
      name: 'recorder',
      cacheDir: cassette,
      upstreamUrl: upstream.url,
    });
    const rec = await connectClient(recorder, { headers: { Authorization: 'Bearer e2e-secret-token' } });
    clients.push(rec);
    expect(textOf(await rec.client.callTool({ name: 'echo', arguments: { text: 'original' } }))).toBe('echo: original');
    await rec.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    await expect
      .poll(
        () =>
          readdirSync(cassette).filter((f) => /^\d+ tools_call_/.test(f) && !/\.(req|res|res-head)\.json$/.test(f))
            .length,
      )
      .toBe(2);

    // open its folder from the proxies' shortcuts
    await nav.getByRole('button', { name: 'Cassettes' }).click();
    await page
      .getByRole('list', { name: 'Proxy cassette folders' })
      .getByRole('button', { name: /recorder/ })
      .click();
    const table = page.getByRole('table', { name: 'Cassette entries' });
    const echoRow = table.getByRole('row').filter({ hasText: 'echo: original' });
    await expect(echoRow).toHaveCount(1);
    await expect(table.getByRole('row').filter({ hasText: 'initialize' })).toHaveCount(1);
    await expect(page.getByRole('button', { name: /^Never matched \d+/ })).toBeVisible();

    // the filter narrows the table
    await page.getByLabel('Filter entries').fill('tools_call_add');
    await expect(table.getByRole('row')).toHaveCount(2); // header + add
    await page.getByLabel('Filter entries').fill('');

    // select → edit in CodeMirror: invalid JSON is flagged as you type, the engine's validation answers on Save
    await echoRow.click();
    const editor = page.getByRole('region', { name: 'Entry editor' });
    const content = editor.getByRole('textbox', { name: 'Entry JSON' });
    await expect(content).toContainText('echo: original');
    const file = readdirSync(cassette).find((f) => / tools_call_echo_[0-9a-f]+\.json$/.test(f)) as string;
    const entry = JSON.parse(readFileSync(join(cassette, file), 'utf8')) as {
      result: { content: Array<{ text: string }> };
    };
    const replace = async (text: string): Promise<void> => {
      await content.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(text);
    };
    await replace('{ "result": ');
    await expect(editor.getByTestId('json-status')).toContainText('Invalid JSON');
    await expect(editor.getByRole('button', { name: 'Save' })).toBeDisabled();
    // an entry that is not an MCP result is flagged at once, above the editor (Save stays off) …
    await replace(JSON.stringify({ ...entry, result: { content: 'not a list' } }, null, 2));
    await expect(editor.getByTestId('json-status')).toContainText('Not an MCP tool result — result.content');
    await expect(editor.getByRole('button', { name: 'Save' })).toBeDisabled();
    // … and a text block without its text too, in the protocol's own words (the SDK's schema for the entry's revision)
    await replace(JSON.stringify({ ...entry, result: { content: [{ type: 'text' }] } }, null, 2));
    await expect(editor.getByTestId('json-status')).toHaveText(
      'Not an MCP tool result — result.content[0].text: Invalid input: expected string, received undefined',
    );
    await expect(editor.getByRole('button', { name: 'Save' })).toBeDisabled();
    entry.result.content[0].text = 'edited in the Cassettes view';
    await replace(JSON.stringify(entry, null, 2));
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect(editor.getByTestId('entry-status')).toHaveText('Saved: the next replayed call gets it');
    await expect(table.getByRole('row').filter({ hasText: 'edited in the Cassettes view' })).toHaveCount(1);
    expect(JSON.parse(readFileSync(join(cassette, file), 'utf8'))).toEqual(entry);

    // a replay proxy started from the UI on the folder serves the edit
    const replayer = await createProxy(page, { mode: 'replay', name: 'replayer', cacheDir: cassette });
    const rep = await connectClient(replayer);
    clients.push(rep);
    expect(textOf(await rep.client.callTool({ name: 'echo', arguments: { text: 'original' } }))).toBe(
      'edited in the Cassettes view',
    );
    expect(upstream.calls.map((c) => c.tool)).toEqual(['echo', 'add']); // the upstream never saw the replay

    // back in the Cassettes view: the entry the run used vs the ones it never matched
    await nav.getByRole('button', { name: 'Cassettes' }).click();
    await expect(page.getByRole('button', { name: /^Used by the last run [1-9]/ })).toBeVisible({ timeout: 10_000 });
    await expect(
      table.getByRole('row').filter({ hasText: 'edited in the Cassettes view' }).getByRole('cell').last(),
    ).toHaveText('1');
    await table.getByRole('row').filter({ hasText: 'edited in the Cassettes view' }).click();
    await expect(content).toContainText('edited in the Cassettes view');
    await app.screenshot(join(ROOT, 'docs/screenshots/cassettes.png'));

    // export a single-file cassette from the Export view (source: the folder open in Cassettes)
    await nav.getByRole('button', { name: 'Export' }).click();
    const form = page.getByRole('form', { name: 'Export cassette' });
    await expect(form.getByLabel('Source folder')).toHaveValue(cassette);
    await form.getByLabel('Single-file cassette').check();
    await form.getByLabel('Output path').fill(join(cassette, 'inside.json'));
    await expect(form.getByRole('alert')).toContainText('inside the source folder');
    const exported = join(work, 'ci', 'cassette.json');
    await form.getByLabel('Output path').fill(exported);
    const preview = page.getByRole('region', { name: 'Export preview' });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await expect(preview.getByTestId('replay-command')).toHaveText(
      `npx mcp-rewind@${version} --replay --cache ${exported}`,
    ); // runs in any folder
    await expect(preview.getByTestId('command-note')).toContainText('not on npm yet'); // npx mcp-rewind@<v> 404s until a release exists
    await expect(preview.getByTestId('command-note')).toContainText('npm pack');
    await expect(preview.getByTestId('preview-summary')).toContainText('1 file');
    await expect(preview.getByRole('table', { name: 'Files to write' })).toContainText('cassette.json');
    await app.screenshot(join(ROOT, 'docs/screenshots/export.png'));
    await form.getByRole('button', { name: 'Export' }).click();
    await expect(page.getByTestId('export-result')).toContainText(`Wrote 1 file to ${exported}`);
    expect(readFileSync(exported, 'utf8')).not.toContain('e2e-secret-token');

    // replay the export with the CLI, as CI would
    const started = await spawnCli(['--replay', '--cache', exported], /MCP endpoint\s+(http:\/\/\S+)/);
    cli = started;
    const ci = await connectClient(started.match);
    clients.push(ci);
    expect(textOf(await ci.client.callTool({ name: 'echo', arguments: { text: 'original' } }))).toBe(
      'edited in the Cassettes view',
    );
    expect(textOf(await ci.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');

    // duplicate, rename and delete (with confirmation) from the editor
    await nav.getByRole('button', { name: 'Cassettes' }).click();
    await table.getByRole('row').filter({ hasText: 'tools_call_add' }).click();
    await editor.getByRole('button', { name: 'Duplicate' }).click();
    await expect(editor.getByTestId('entry-status')).toContainText('Duplicated as');
    await expect(table.getByRole('row').filter({ hasText: 'tools_call_add' })).toHaveCount(2);
    await editor.getByLabel('Key').fill('renamed/by hand');
    await editor.getByRole('button', { name: 'Rename' }).click();
    await expect(editor.getByTestId('entry-status')).toContainText('renamed%2Fby%20hand.json');
    await expect(table.getByRole('row').filter({ hasText: 'renamed%2Fby%20hand' })).toHaveCount(1);
    await editor.getByRole('button', { name: 'Delete…' }).click();
    await editor.getByRole('button', { name: 'Confirm delete' }).click();
    await expect(table.getByRole('row').filter({ hasText: 'renamed%2Fby%20hand' })).toHaveCount(0);
    expect(readdirSync(cassette).some((f) => f.includes('renamed'))).toBe(false);
    expect(problems).toEqual([]);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    if (cli) await stop(cli.child);
    await upstream.close();
  }
});

/**
 * A CI job's folder after the step the Export view's note asks for (`npm install ./mcp-rewind-<version>.tgz`): the
 * package in node_modules and its bin linked, as `npm install <checkout>` links a folder — the built checkout stands
 * in for the tarball (packing and installing it from the registry is test/pack/smoke.pack.ts's job, minutes long).
 */
function ciJobFolder(): string {
  const job = join(work, 'ci-job');
  mkdirSync(join(job, 'node_modules/.bin'), { recursive: true });
  writeFileSync(join(job, 'package.json'), JSON.stringify({ name: 'ci-job', private: true }));
  symlinkSync(ROOT, join(job, 'node_modules/mcp-rewind'));
  symlinkSync('../mcp-rewind/bin/mcp-rewind.js', join(job, 'node_modules/.bin/mcp-rewind'));
  return job;
}

test('Export for CI: the printed command, run as it is from another folder with the upstream gone, replays the recording', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const upstream: SdkServerHandle = await startSdkServer();
  const recorded = join(work, 'for-ci');
  const clients: ConnectedClient[] = [];
  let replaying: ChildProcess | undefined;
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.open();
    const recorder = await createProxy(page, {
      mode: 'record',
      name: 'ci-recorder',
      cacheDir: recorded,
      upstreamUrl: upstream.url,
    });
    const rec = await connectClient(recorder);
    clients.push(rec);
    const live = {
      echo: await rec.client.callTool({ name: 'echo', arguments: { text: 'for CI' } }),
      add: await rec.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }),
    };
    await rec.close();
    await upstream.close(); // CI has no upstream

    const job = ciJobFolder();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Export' }).click();
    const form = page.getByRole('form', { name: 'Export cassette' });
    await form.getByLabel('Source folder').fill(recorded);
    await form.getByLabel('Folder of replay files').check();
    await form.getByLabel('Output path').fill(join(job, 'fixtures', 'mcp'));
    const printed = page.getByRole('region', { name: 'Export preview' }).getByTestId('replay-command');
    await expect(printed).toContainText('--replay --cache');
    await form.getByRole('button', { name: 'Export' }).click();
    await expect(page.getByTestId('export-result')).toContainText(`to ${join(job, 'fixtures', 'mcp')}`);
    const command = (await printed.textContent()) ?? '';

    // the job runs the line as the user copied it, in its own folder, through a shell
    replaying = spawn('sh', ['-c', command], { cwd: job, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command}: no endpoint within 30 s:\n${out}`)), 30_000);
      const look = (chunk: Buffer): void => {
        out += chunk.toString();
        const found = /MCP endpoint\s+(http:\/\/\S+)/.exec(out);
        if (found) resolve((clearTimeout(timer), found[1]));
      };
      replaying!.stdout!.on('data', look);
      replaying!.stderr!.on('data', look);
      replaying!.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${out}`)));
    });
    const ci = await connectClient(url);
    clients.push(ci);
    expect(await ci.client.callTool({ name: 'echo', arguments: { text: 'for CI' } })).toEqual(live.echo);
    expect(await ci.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toEqual(live.add);
    expect(problems).toEqual([]);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    if (replaying?.pid && replaying.exitCode === null) {
      const exited = new Promise((resolve) => replaying!.once('exit', resolve));
      process.kill(-replaying.pid, 'SIGTERM'); // the shell, npx and the CLI it started
      await exited;
    }
    await upstream.close().catch(() => {});
  }
});
