import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFolderInUse, startUi, type RunningUi } from '../../src/main/cli/ui-command.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// One shell per user data folder: two would both manage proxies and overwrite each other's workspace.json. A second
// `mcp-rewind ui` opens the running one; a record left by a process that is gone (or a reused pid) does not count.

const REPO = join(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin/mcp-rewind.js');
const running: RunningUi[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const ui of running.splice(0).reverse()) await ui.close().catch(() => {});
  await removeTempDirs();
});

async function renderer(): Promise<string> {
  const dir = await tempDir('rewind-renderer-');
  writeFileSync(join(dir, 'index.html'), '');
  return dir;
}

async function start(dataDir: string, rendererDir: string): Promise<RunningUi> {
  const ui = await startUi({ host: '127.0.0.1', port: 0, open: false, dataDir, version: 'test', rendererDir });
  running.push(ui);
  return ui;
}

/** a pid that no process has any more */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const ownerOf = (dataDir: string): { pid: number; shell: string; origin?: string } =>
  JSON.parse(readFileSync(join(dataDir, 'owner.json'), 'utf8'));

describe('one UI per data folder', () => {
  it('a second UI on the folder is refused, naming the running one; once that one closes, the folder is free', async () => {
    const [dataDir, rendererDir] = [await tempDir('rewind-data-'), await renderer()];
    const first = await start(dataDir, rendererDir);
    expect(ownerOf(dataDir)).toMatchObject({ pid: process.pid, shell: 'browser', origin: first.shell.origin });
    // as another process sees it (this process never counts as another): the record names a live pid whose UI answers
    const ours = readFileSync(join(dataDir, 'owner.json'), 'utf8');
    writeFileSync(join(dataDir, 'owner.json'), JSON.stringify({ ...ownerOf(dataDir), pid: process.ppid }));
    const refused = await start(dataDir, rendererDir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataFolderInUse);
    expect((refused as DataFolderInUse).owner.origin).toBe(first.shell.origin);
    expect((refused as Error).message).toMatch(/already running \(pid \d+\) at http:\/\/127\.0\.0\.1:\d+/);
    writeFileSync(join(dataDir, 'owner.json'), ours);
    await first.close();
    running.splice(running.indexOf(first), 1);
    expect(existsSync(join(dataDir, 'owner.json'))).toBe(false); // released on close
    const second = await start(dataDir, rendererDir);
    expect(ownerOf(dataDir).origin).toBe(second.shell.origin);
  });

  it('a record left behind does not hold the folder: its process is gone, or its pid lives on but no UI answers there', async () => {
    const [dataDir, rendererDir] = [await tempDir('rewind-data-'), await renderer()];
    writeFileSync(
      join(dataDir, 'owner.json'),
      JSON.stringify({ pid: await deadPid(), shell: 'browser', origin: 'http://127.0.0.1:9', since: '' }),
    );
    const ui = await start(dataDir, rendererDir);
    expect(ownerOf(dataDir).pid).toBe(process.pid);
    await ui.close();
    running.splice(0);
    // a live process (the test runner's parent) named with an address where nothing answers: a reused pid
    writeFileSync(
      join(dataDir, 'owner.json'),
      JSON.stringify({ pid: process.ppid, shell: 'browser', origin: 'http://127.0.0.1:9', since: '' }),
    );
    await start(dataDir, rendererDir);
    expect(ownerOf(dataDir).pid).toBe(process.pid);
  });

  it('the desktop app holding the folder: the browser UI says so and which folder option to use', async () => {
    const [dataDir, rendererDir] = [await tempDir('rewind-data-'), await renderer()];
    writeFileSync(join(dataDir, 'owner.json'), JSON.stringify({ pid: process.ppid, shell: 'electron', since: '' }));
    await expect(start(dataDir, rendererDir)).rejects.toThrow(
      /the desktop app \(pid \d+\) is using .*: close it, or give this UI another folder with --data-dir/,
    );
  });

  it('`mcp-rewind ui` run twice: the second prints a new one-time link to the running UI and exits 0; after a kill -9 the next one starts', async () => {
    const dataDir = await tempDir('rewind-data-');
    const launch = (): {
      child: ChildProcess;
      output: Promise<{ code: number | null; out: string }>;
      banner: Promise<string>;
    } => {
      const child = spawn(process.execPath, [BIN, 'ui', '--no-open', '--port', '0', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      let seen: (url: string) => void = () => {};
      const banner = new Promise<string>((resolve) => (seen = resolve));
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const url = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?code=[\w-]+)/.exec(out)?.[1];
        if (url) seen(url);
      });
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const output = new Promise<{ code: number | null; out: string }>((resolve) =>
        child.once('exit', (code) => resolve({ code, out })),
      );
      return { child, output, banner };
    };
    const first = launch();
    const url = await first.banner;
    const second = launch();
    const { code, out } = await second.output;
    expect(code).toBe(0);
    expect(out).toContain('already running');
    // the running UI's address, with a code of its own that the running UI takes (once)
    const again = /open\s+(http:\/\/127\.0\.0\.1:\d+\/\?code=([\w-]+))/.exec(out)!;
    expect(new URL(again[1]).origin).toBe(new URL(url).origin);
    expect(again[1]).not.toBe(url);
    const exchange = () =>
      fetch(`${new URL(url).origin}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: again[2] }),
      });
    expect((await exchange()).status).toBe(200);
    expect((await exchange()).status).toBe(401);
    first.child.kill('SIGKILL');
    await first.output;
    const third = launch();
    expect(await third.banner).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=/);
    expect(ownerOf(dataDir).pid).toBe(third.child.pid);
  }, 40_000);
});
