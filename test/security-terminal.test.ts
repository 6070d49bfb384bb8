/**
 * Terminal escape sequences in names (security issue, third pass, item 10, first part). A key, a tool name or a path
 * from a file or the wire reached the terminal raw through verify, export, `-v` logs and the serve/ui banners: an
 * escape sequence could clear the screen, retitle the window or forge earlier lines. Every line the CLI prints now
 * has its control characters escaped (src/shared/terminal-text.ts). The built CLI as a real process (build first).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient } from './fixtures/client.js';
import { BIN, namedToolsServer, runCli } from './helpers/hostile.js';
import { startCli } from './helpers/procfs.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const ESC_NAME = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil'; // retitle, clear screen, 8-bit CSI, bidi override
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil';
// eslint-disable-next-line no-control-regex -- control characters are what must not be printed
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
const kept = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);

/** A folder whose entry and debug-file names carry the escape sequences (a bare entry, a broken one, a link). */
async function escapedFolder(): Promise<string> {
  const dir = await tempDir('rewind-term-');
  writeFileSync(
    path.join(dir, '1 initialize.json'),
    JSON.stringify({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } }),
  );
  writeFileSync(path.join(dir, `2 ${ESC_NAME}.json`), JSON.stringify({ content: [] }));
  writeFileSync(path.join(dir, `3 ${ESC_NAME}x.json`), 'not json');
  symlinkSync('/etc/hostname', path.join(dir, `4 ${ESC_NAME}y.json`));
  return dir;
}

/** Starts a long-running command, waits until its stdout matches `banner`, ends it with SIGTERM: both outputs. */
async function bannerOf(args: string[], banner: RegExp): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${stdout}\n${stderr}`)), 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (banner.test(stdout)) resolve(clearTimeout(timer));
    });
    void exited.then(() => reject(new Error(`exited before its banner:\n${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return { stdout, stderr };
}

describe('what the CLI prints carries no raw control character', () => {
  it('verify: a key full of escape sequences is printed escaped', async () => {
    const dir = await escapedFolder();
    const upstream = kept(await namedToolsServer(['echo']));
    const run = await runCli(['verify', '--cache', dir, '--url', upstream.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain(`skip   ${SHOWN}  cannot send again`);
    expect(run.stderr).toContain(`refusing 4 ${SHOWN}y.json: it is a symbolic link`);
  });

  it('export: the warnings naming refused and broken entries are escaped', async () => {
    const dir = await escapedFolder();
    const out = await tempDir('rewind-out-');
    const run = await runCli([
      'export',
      '--cache',
      dir,
      '--out',
      path.join(out, 'c.json'),
      '--har',
      path.join(out, 'c.har'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr).toContain(`ignoring 3 ${SHOWN}x.json: not valid JSON`);
    expect(run.stderr).toContain(`refusing 4 ${SHOWN}y.json`);
  });

  it('-v: a tool name from the wire can neither send escape sequences nor start a forged line', async () => {
    const name = `${ESC_NAME}\nlive   tools/call forged`;
    const upstream = kept(await namedToolsServer([name]));
    const cli = kept(await startCli(['-v', '--url', upstream.url, '--cache', await tempDir('rewind-term-')]));
    const client = kept(await connectClient(cli.url));
    await client.client.callTool({ name, arguments: {} });
    await expect
      .poll(() => cli.stderr(), { timeout: 5_000 })
      .toContain(`tools/call ${SHOWN}\\x0alive   tools/call forged`);
    expect(cli.stderr()).not.toMatch(RAW_CONTROL);
    expect(
      cli
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('live   tools/call forged')),
    ).toEqual([]);
  });

  it('the proxy, serve and ui banners print a path given to them escaped', async () => {
    const base = await tempDir('rewind-term-');
    const odd = path.join(base, ESC_NAME);
    mkdirSync(odd);
    const proxy = await bannerOf(['--replay', '--cache', odd, '--port', '0'], /cassette/);
    const serve = await bannerOf(['serve', '--port', '0', '--data-dir', odd], /MCP endpoint/);
    const ui = await bannerOf(['ui', '--port', '0', '--no-open', '--data-dir', odd], /data /);
    for (const run of [proxy, serve, ui]) {
      expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
      expect(run.stdout).toContain(path.join(base, SHOWN));
    }
  });
});
