/**
 * A hostile cassette never writes outside the folder the user chose (security issue, third pass, item 1). The attack:
 * a single-file cassette whose entry key is `../../../../victim/package`, an `initialize` entry (saved as its bare
 * result, so the attacker controls a whole package.json). Opened in the UI and saved as a folder (or a single file,
 * whose temporary folder sat beside it), the key went unescaped into the file name and wrote victim/package.json next
 * to the user's folder. Now every name becomes a path through safe-name.ts fileKey and the atomic write checks it is
 * a plain name inside the target (fs/inside-folder.ts). Everything runs through the real surfaces: the UI's WebSocket
 * API as the browser shell serves it, the built CLI as a process (build first), real files.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../src/shared/api.js';
import { connectClient } from './fixtures/client.js';
import { deadPid, namedToolsServer, refusal, runCli, treeOf, uiApi } from './helpers/hostile.js';
import { startCli } from './helpers/procfs.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
const kept = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);

const HOSTILE_KEY = '../../../../victim/package';
const PAYLOAD = { name: 'victim', version: '1.0.0', scripts: { test: 'echo PWNED > pwned.txt' } };

/**
 * The user's folder root/a/b/c with a hostile single file in it, and root/a/b/victim, an existing sibling folder:
 * where `<c>/saved/1 ../../../../victim/package.json` lands (`1 ..` is a name, the three `..` after it climb).
 */
async function hostileLayout(): Promise<{ root: string; victim: string; work: string; evil: string }> {
  const root = await tempDir('rewind-paths-');
  const victim = path.join(root, 'a', 'b', 'victim');
  const work = path.join(root, 'a', 'b', 'c');
  mkdirSync(victim, { recursive: true });
  mkdirSync(work, { recursive: true });
  const evil = path.join(work, 'evil.json');
  const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
  const entries = [
    { n: 1, key: HOSTILE_KEY, entry: { $rewind: 1, method: 'initialize', params: initialize, result: PAYLOAD } },
    {
      n: 2,
      key: 'initialize',
      entry: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    },
  ];
  writeFileSync(
    evil,
    JSON.stringify({ format: 'mcp-rewind-cassette', version: 1, exportedAt: new Date().toISOString(), entries }),
  );
  return { root, victim, work, evil };
}

/** What appeared under `root` since `before`, and whether each is inside one of `allowed` (a folder's content, or a file). */
function outside(root: string, before: string[], allowed: string[]): string[] {
  const inside = (p: string): boolean =>
    allowed.some((a) => p === a || p === a + path.sep || p.startsWith(a + path.sep));
  return treeOf(root).filter((p) => !before.includes(p) && !inside(p));
}

describe('a hostile single-file cassette opened in the UI and saved', () => {
  it('Save as folder / single file / HAR writes only inside the chosen paths; the key is saved under its safe form', async () => {
    const { root, victim, work, evil } = await hostileLayout();
    const ui = kept(await uiApi());
    const source = await ui.api.call('sources.open', { path: evil });
    expect(source.exchanges).toBe(2);
    const before = treeOf(root);
    const outs = {
      folder: path.join(work, 'saved'),
      file: path.join(work, 'saved.json'),
      har: path.join(work, 'saved.har'),
    };
    for (const format of ['folder', 'file', 'har'] as const)
      await ui.api.call('traffic.save', { format, out: outs[format] });

    expect(existsSync(path.join(victim, 'package.json'))).toBe(false);
    expect(outside(root, before, Object.values(outs))).toEqual([]);
    expect(treeOf(root).filter((p) => path.basename(p).startsWith('.rewind-'))).toEqual([]); // no temp file, no temp folder
    expect(source.skipped.join('\n')).toContain(`key ${JSON.stringify(HOSTILE_KEY)} is not a safe file name`);
    const safe = '..%2F..%2F..%2F..%2Fvictim%2Fpackage';
    expect(existsSync(path.join(outs.folder, `1 ${safe}.json`))).toBe(true);
    expect(JSON.parse(readFileSync(outs.file, 'utf8')).entries.map((e: { key: string }) => e.key)).toEqual([
      safe,
      'initialize',
    ]);

    // the saved folder's index maps the rewritten key to the entry
    await ui.api.call('sources.open', { path: outs.folder });
    const events = (await ui.api.call('traffic.snapshot', {})) as TrafficEvent[];
    expect(events.filter((e) => e.key === safe && e.proxyId !== source.id).map((e) => e.response)).toEqual([
      { jsonrpc: '2.0', id: 1, result: PAYLOAD },
    ]);
  });

  it('export (the UI, the CLI) of the hostile cassettes writes only the chosen file or folder', async () => {
    const { root, victim, work, evil } = await hostileLayout();
    const ui = kept(await uiApi());
    await ui.api.call('sources.open', { path: evil });
    const saved = path.join(work, 'saved');
    await ui.api.call('traffic.save', { format: 'folder', out: saved });
    const before = treeOf(root);
    const outs = [path.join(work, 'x-folder'), path.join(work, 'x.json'), path.join(work, 'x.har')];
    for (const [i, format] of (['folder', 'file', 'har'] as const).entries())
      await ui.api.call('export.run', { dir: saved, format, out: outs[i] });
    const cli = await runCli(
      ['export', '--cache', evil, '--out', path.join(work, 'y.json'), '--har', path.join(work, 'y.har')],
      work,
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(existsSync(path.join(victim, 'package.json'))).toBe(false);
    expect(outside(root, before, [...outs, path.join(work, 'y.json'), path.join(work, 'y.har')])).toEqual([]);
  });
});

describe('names from the wire and the API', () => {
  it('record (the CLI as a process): tools named to climb out of the folder are recorded inside it', async () => {
    const root = await tempDir('rewind-paths-');
    const dir = path.join(root, 'a', 'cassette');
    const names = ['../../victim/package', '..\\..\\victim\\package', '/etc/victim', '..'];
    const upstream = kept(await namedToolsServer(names));
    const cli = kept(await startCli(['--url', upstream.url, '--cache', dir]));
    const client = kept(await connectClient(cli.url));
    for (const name of names) await client.client.callTool({ name, arguments: {} });
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(
      treeOf(root).filter(
        (p) => path.dirname(p) !== dir && p !== path.join(root, 'a') + path.sep && p !== dir + path.sep,
      ),
    ).toEqual([]);
    expect(treeOf(dir).filter((p) => p.includes('tools_call_')).length).toBeGreaterThanOrEqual(names.length);
  });

  it('hand edits, renames and copies through the API stay inside the folder; a planted link is refused, never written through', async () => {
    const { root, victim, work, evil } = await hostileLayout();
    const ui = kept(await uiApi());
    await ui.api.call('sources.open', { path: evil });
    const dir = path.join(work, 'saved');
    await ui.api.call('traffic.save', { format: 'folder', out: dir });
    const before = treeOf(root);
    const text = JSON.stringify({
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 'edited', version: '1' },
    });
    for (const file of ['../../../victim/package.json', '1 ../../../../victim/package.json', '..']) {
      expect(await refusal(ui.api.call('cassettes.write', { dir, file, text }))).toMatch(/^file: /);
    }
    const renamed = await ui.api.call('cassettes.rename', { dir, file: '2 initialize.json', key: HOSTILE_KEY });
    expect(renamed.entry.file).toBe('2 ..%2F..%2F..%2F..%2Fvictim%2Fpackage.json');
    const copy = await ui.api.call('cassettes.duplicate', { dir, file: renamed.entry.file });
    expect(path.dirname(path.join(dir, copy.entry.file))).toBe(dir);

    const target = path.join(root, 'outside.json');
    writeFileSync(target, '{"untouched":true}');
    before.push(target);
    symlinkSync(target, path.join(dir, '9 initialize.json'));
    expect(await refusal(ui.api.call('cassettes.write', { dir, file: '9 initialize.json', text }))).toMatch(
      /symbolic link/,
    );
    expect(readFileSync(target, 'utf8')).toBe('{"untouched":true}');
    expect(existsSync(path.join(victim, 'package.json'))).toBe(false);
    expect(outside(root, before, [dir])).toEqual([]);
  });
});

/** Names created in `folder` while `during` runs (inotify: every temp file's creation is seen). */
async function createdIn(folder: string, during: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const watcher: FSWatcher = watch(folder, (_event, name) => void (name && seen.push(name)));
  try {
    await during();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the last events
  } finally {
    watcher.close();
  }
  return seen;
}

describe('temporary files (.rewind-tmp-*)', () => {
  it('are created inside the target folder and nowhere else (Save as single file has no temporary folder)', async () => {
    const { root, work, evil } = await hostileLayout();
    const ui = kept(await uiApi());
    await ui.api.call('sources.open', { path: evil });
    const out = path.join(work, 'out');
    mkdirSync(out);
    const parent = path.join(root, 'a', 'b');
    const [inOut, inParent] = await Promise.all([
      createdIn(out, () => ui.api.call('traffic.save', { format: 'file', out: path.join(out, 'saved.json') })),
      createdIn(parent, () => new Promise((resolve) => setTimeout(resolve, 500))),
    ]);
    expect(inOut.filter((n) => n.startsWith('.rewind-')).length).toBeGreaterThan(0);
    expect(inOut.filter((n) => n !== 'saved.json' && !n.startsWith('.rewind-tmp-'))).toEqual([]);
    expect(inParent).toEqual([]);
    expect(treeOf(work).filter((p) => path.basename(p).startsWith('.rewind-'))).toEqual([]);
  });

  it('left by a crashed writer are removed on start; a live writer’s are kept', async () => {
    const dir = await tempDir('rewind-cassette-');
    const orphan = `.rewind-tmp-${await deadPid()}-0123456789ab`;
    const live = `.rewind-tmp-${process.pid}-0123456789ab`;
    for (const name of [orphan, live]) writeFileSync(path.join(dir, name), 'half a file');
    const upstream = kept(await namedToolsServer(['echo']));
    const cli = kept(await startCli(['--url', upstream.url, '--cache', dir]));
    expect(existsSync(path.join(dir, orphan))).toBe(false);
    expect(existsSync(path.join(dir, live))).toBe(true);
    await cli.close();

    // a file's folder too (an export's, a save's): its orphans go with the first write there
    const out = await tempDir('rewind-out-');
    writeFileSync(path.join(out, orphan), 'half a file');
    const run = await runCli(['export', '--cache', dir, '--out', path.join(out, 'c.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(path.join(out, orphan))).toBe(false);
  });
});
