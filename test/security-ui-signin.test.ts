import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HAS_PROCFS } from './helpers/procfs.js';
import { argvOf, descendantsOf, fakeOpener, startUiProcess, type UiProcess } from './helpers/ui-process.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

// Signing in to `mcp-rewind ui` with nothing that unlocks it in any process's argv — which every local user reads in
// /proc/<pid>/cmdline — nor in a URL the browser keeps. The built CLI as a real process, with a stand-in for xdg-open
// first on its PATH (it starts a stand-in browser, as xdg-open does), looked at through /proc.

const uis: UiProcess[] = [];
const started: number[] = [];
afterEach(async () => {
  for (const ui of uis.splice(0)) await ui.stop();
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL'); // the stand-in opener and browser the UI started (by their pid)
    } catch {
      // gone already
    }
  }
  await removeTempDirs();
});

/** The pids and argv the stand-in opener and browser noted in `log` (the second UI exits: its opener is no child). */
function openedBy(log: string): Array<{ pid: number; argv: string }> {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => Number(line.split(' ')[1]))
    .map((pid) => ({ pid, argv: argvOf(pid) }));
}

async function until<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const post = (url: string, type: string, body: string, origin?: string): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': type, ...(origin ? { origin } : {}) }, body });

describe.skipIf(!HAS_PROCFS)('mcp-rewind ui: signing in', () => {
  if (!HAS_PROCFS) console.log('skipped: the argv of processes is read from /proc (Linux)');

  it('no argv of any process it starts holds the token or a code; it opens a 0600 file whose code works once; the printed code works once', async () => {
    const dataDir = await tempDir('rewind-ui-data-');
    const bin = await tempDir('rewind-fake-opener-');
    const log = `${bin}/opened.log`;
    const env = { PATH: `${fakeOpener(bin, log)}:${process.env.PATH}` };
    const ui = await startUiProcess(dataDir, { env });
    uis.push(ui);
    const token = ui.token();

    // the opener and the browser it started are running: every process the UI started, read as any user can
    const noted = await until(() => {
      const seen = openedBy(log);
      return seen.length >= 2 && seen.every((p) => p.argv) ? seen : undefined;
    }, 'the opener and its browser');
    started.push(...noted.map((p) => p.pid));
    const tree = descendantsOf(ui.pid);
    expect(tree).toEqual(expect.arrayContaining(noted.map((p) => p.pid)));
    const argvs = [argvOf(ui.pid), ...tree.map(argvOf)];
    const printedCode = new URL(ui.link).searchParams.get('code');
    const holding = argvs.filter(
      (argv) =>
        argv.includes(token) || /[?&](code|token)=/.test(argv) || (printedCode !== null && argv.includes(printedCode)),
    );
    expect(holding, 'processes whose argv unlocks the UI').toEqual([]);

    // what the browser was given: a file:// URL of a file only its owner reads, holding no token, one code
    const opened = noted[0].argv.split(' ').at(-1)!;
    expect(opened).toMatch(/^file:\/\//);
    const file = fileURLToPath(opened);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain(token);
    expect(html).toContain(`action="${ui.origin}/api/handoff"`);
    const fileCode = /name="code" value="([\w-]+)"/.exec(html)![1];
    expect(fileCode).not.toBe(printedCode);
    // the file's form, as the browser posts it from a file:// page (Origin: null): the token once, then never again
    const first = await post(
      `${ui.origin}/api/handoff`,
      'application/x-www-form-urlencoded',
      `code=${fileCode}`,
      'null',
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const page = await first.text();
    expect(page).toContain(`sessionStorage.setItem("mcp-rewind-token", "${token}")`);
    expect(page).toContain("location.replace('/')");
    expect(
      (await post(`${ui.origin}/api/handoff`, 'application/x-www-form-urlencoded', `code=${fileCode}`, 'null')).status,
    ).toBe(401);

    // the printed link's code: exchanged once by the page (its own origin), refused the second time
    expect(Object.keys(Object.fromEntries(new URL(ui.link).searchParams))).toEqual(['code']);
    const exchange = () =>
      post(`${ui.origin}/api/session`, 'application/json', JSON.stringify({ code: printedCode }), ui.origin);
    const traded = await exchange();
    expect(traded.status).toBe(200);
    expect(await traded.json()).toEqual({ token });
    expect((await exchange()).status).toBe(401);
    // a page of another local server cannot trade a code, nor post the hand-off form
    expect(
      (
        await post(
          `${ui.origin}/api/session`,
          'application/json',
          JSON.stringify({ code: 'x' }),
          'http://127.0.0.1:4598',
        )
      ).status,
    ).toBe(403);
  }, 60_000);

  it('run again on the same folder: a new link to the running UI, and again nothing that unlocks it in any argv', async () => {
    const dataDir = await tempDir('rewind-ui-data-');
    const bin = await tempDir('rewind-fake-opener-');
    const log = `${bin}/opened.log`;
    const env = { PATH: `${fakeOpener(bin, log)}:${process.env.PATH}` };
    const ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    uis.push(ui);
    const token = ui.token();
    const second = await startUiProcess(dataDir, { env });
    expect(second.stdout()).toContain('already running');
    await second.exited;
    expect(second.origin).toBe(ui.origin);
    const noted = await until(() => {
      const seen = openedBy(log);
      return seen.length >= 2 && seen.every((p) => p.argv) ? seen : undefined;
    }, 'the opener and its browser');
    started.push(...noted.map((p) => p.pid));
    for (const { argv } of noted) {
      expect(argv).not.toContain(token);
      expect(argv).not.toMatch(/[?&](code|token)=/);
    }
    const html = readFileSync(fileURLToPath(noted[0].argv.split(' ').at(-1)!), 'utf8');
    const fileCode = /name="code" value="([\w-]+)"/.exec(html)![1];
    expect(
      (await post(`${ui.origin}/api/handoff`, 'application/x-www-form-urlencoded', `code=${fileCode}`, 'null')).status,
    ).toBe(200);
    const code = new URL(second.link).searchParams.get('code');
    const traded = await post(`${ui.origin}/api/session`, 'application/json', JSON.stringify({ code }));
    expect(await traded.json()).toEqual({ token });
  }, 60_000);
});
