import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { connectClient } from './fixtures/client.js';
import { startSdkServer } from './fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

// `mcp-rewind --verbose … 2>&1 | head -n 4`: once the reader is gone, every log line is a write to a closed pipe.
// It used to become an uncaughtException whose handler logged again, to the same pipe: a 100% CPU loop that ignored
// SIGTERM while MCP calls timed out. Now the proxy, `serve` and `ui` keep serving, stay idle and end on SIGTERM.

const REPO = join(import.meta.dirname, '..');
const BIN = join(REPO, 'bin/mcp-rewind.js');
const hasProc = existsSync('/proc/self/stat');

const open: Array<{ close(): Promise<void> }> = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

/** Starts the CLI, waits for `pattern` in its stdout, then closes the reading ends of its stdout and stderr. */
async function startThenDeafen(
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let out = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 15 s:\n${out}`)), 15_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  child.stdout!.destroy();
  child.stderr!.destroy();
  return { child, match };
}

/** CPU time (ms) the process used during `ms` of wall time. */
async function cpuDuring(pid: number, ms: number): Promise<number> {
  const ticks = (): number => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100 Hz)
  };
  const before = ticks();
  await new Promise((r) => setTimeout(r, ms));
  return (ticks() - before) * 10;
}

/** SIGTERM ends it: resolves with the exit (code or signal), or 'still running' after 10 s. */
function terminate(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), 10_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(String(code ?? signal));
    });
    child.kill('SIGTERM');
  });
}

describe.skipIf(!hasProc)('a closed stdout/stderr never wedges the process', () => {
  if (!hasProc)
    console.log('skipped: CPU time is read from /proc (Linux); the stream guard is the same code everywhere');

  it('the proxy (--verbose): answers the next calls, stays idle, exits on SIGTERM', async () => {
    const upstream = await startSdkServer();
    open.push(upstream);
    const { child, match } = await startThenDeafen(
      ['-v', '--url', upstream.url, '--cache', await tempDir('rewind-closed-')],
      /MCP endpoint\s+(http\S+)/,
    );
    const c = await connectClient(match[1]);
    open.push(c);
    for (let i = 0; i < 5; i++)
      expect(await c.client.callTool({ name: 'echo', arguments: { text: `call ${i}` } })).toMatchObject({
        content: [{ text: `echo: call ${i}` }],
      });
    await c.close();
    // a busy loop would use ~1,500 ms of CPU in 1.5 s
    expect(await cpuDuring(child.pid!, 1_500)).toBeLessThan(500);
    expect(await terminate(child)).toBe('0');
  });

  it('`serve --verbose`: answers REST and MCP, stays idle, exits on SIGTERM', async () => {
    const dataDir = await tempDir('rewind-serve-data-');
    const { child, match } = await startThenDeafen(
      ['serve', '-v', '--port', '0', '--data-dir', dataDir],
      /REST API\s+(http:\/\/[^/]+)\/api/,
    );
    const token = readFileSync(join(dataDir, 'serve-api-token'), 'utf8').trim();
    const created = await fetch(`${match[1]}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        tools: [
          {
            name: 'ping',
            input_schema: { type: 'object' },
            behavior: { type: 'override', response: { text: 'pong' } },
          },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const { mcp } = (await created.json()) as { mcp: { url: string; headers: Record<string, string> } };
    const c = await connectClient(mcp.url, { headers: mcp.headers });
    open.push(c);
    for (let i = 0; i < 5; i++)
      expect(await c.client.callTool({ name: 'ping', arguments: {} })).toMatchObject({ content: [{ text: 'pong' }] });
    await c.close();
    expect(await cpuDuring(child.pid!, 1_500)).toBeLessThan(500);
    expect(await terminate(child)).toBe('0');
  });

  it('`ui`: keeps answering on its WebSocket after a logged error, stays idle, exits on SIGTERM', async () => {
    const dataDir = await tempDir('rewind-ui-data-');
    const { child, match } = await startThenDeafen(
      ['ui', '--no-open', '--port', '0'],
      /open\s+(http:\/\/127\.0\.0\.1:(\d+))\/\?code=/,
      {
        MCP_REWIND_DATA_DIR: dataDir,
      },
    );
    const [, origin] = match;
    const token = readFileSync(join(dataDir, 'ui-token'), 'utf8').trim(); // the owner's, 0600
    const connect = (): Promise<WebSocket> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(
          `${origin.replace('http', 'ws')}/api`,
          ['mcp-rewind.v1', `mcp-rewind.token.${token}`],
          { origin },
        );
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    // a frame over the limit is logged (to the closed stderr) and closes that connection
    const big = await connect();
    big.on('error', () => {});
    big.send('x'.repeat(2 * 1024 * 1024));
    await new Promise((r) => big.once('close', r));
    const ws = await connect();
    const reply = await new Promise<string>((resolve) => {
      ws.once('message', (data) => resolve(data.toString()));
      ws.send(JSON.stringify({ id: 1, command: 'app.info', input: {} }));
    });
    expect(JSON.parse(reply)).toMatchObject({ id: 1, ok: true });
    ws.close();
    expect(await cpuDuring(child.pid!, 1_500)).toBeLessThan(500);
    expect(await terminate(child)).toBe('0');
  });
});
