/**
 * Nothing grows without bound: client sessions that went silent end (upstream sessions closed, stdio children
 * ended), a session evicted at the cap ends its child, and slow or malformed connections give their descriptors
 * back. Real processes where it matters (the built CLI and a proxy process, read through /proc); the idle period
 * is shortened. No timing is asserted: each test waits, within a generous bound, for the state to be reached.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startUpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { connectClient } from '../fixtures/client.js';
import { everythingEntry } from '../fixtures/everything.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { childrenOf, HAS_PROCFS, openFds, startCli } from '../helpers/procfs.js';
import { skipping } from '../helpers/skip.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { proxyOverBridge } from '../helpers/stdio-peers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NO_CHILDREN = !HAS_PROCFS && 'the stdio children of a process are listed from /proc (Linux)';
const EVERYTHING = `"${process.execPath}" "${everythingEntry()}" stdio`;
const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

/** An MCP session opened with a bare initialize (and initialized), then left alone: what a vanished client leaves. */
async function openAndLeave(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'left-alone', version: '1' } },
    }),
  });
  const sid = init.headers.get('mcp-session-id');
  expect(init.status, await init.text()).toBe(200);
  expect(sid).toBeTruthy();
  const done = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid as string, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  return sid as string;
}

describe('idle client sessions end', () => {
  it('their upstream sessions are closed (DELETE); a session still in use is kept', async () => {
    const upstream = keep(await startSdkServer());
    const proxy = keep(
      await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: await tempDir(), sessionIdleMs: 300 }),
    );
    // each upstream session as seen right after its client opened it (a busy machine may reap the first ones sooner)
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      await openAndLeave(proxy.url);
      for (const id of upstream.sessionIds()) seen.add(id);
    }
    const user = keep(await connectClient(proxy.url)); // keeps its server stream (GET) open: a listening client is not idle
    for (const id of upstream.sessionIds()) seen.add(id);
    expect(seen.size).toBe(6);
    await expect.poll(() => upstream.sessionIds().length, { timeout: 15_000 }).toBe(1);
    expect(proxy.endpoint.sessions.size).toBe(1);
    const answer = await user.client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(answer.content).toEqual([{ type: 'text', text: 'echo: still here' }]);
  });

  it.skipIf(skipping(NO_CHILDREN, 'stdio children end with their sessions'))(
    'their stdio children end (the built CLI, --session-idle 1)',
    async () => {
      const cli = keep(
        await startCli(['--upstream-command', EVERYTHING, '--cache', await tempDir(), '--session-idle', '1']),
      );
      // each session's child, as seen right after it opened (on a busy machine the first may be reaped before the third opens)
      const seen = new Set<number>();
      for (let i = 0; i < 3; i++) {
        await openAndLeave(cli.url);
        for (const pid of childrenOf(cli.pid)) seen.add(pid);
      }
      expect(seen.size, cli.stderr()).toBeGreaterThanOrEqual(3);
      await expect.poll(() => childrenOf(cli.pid).length, { timeout: 20_000 }).toBe(0);
      expect(cli.child.exitCode).toBeNull();
    },
    40_000,
  );

  it.skipIf(skipping(NO_CHILDREN, 'the stdio bridge reaps its own children'))(
    'also when nobody watches (proxy-only pipes requests unread): the stdio bridge reaps its own',
    async () => {
      const cli = keep(await startCli(['--proxy-only', '--upstream-command', EVERYTHING, '--session-idle', '1']));
      const seen = new Set<number>();
      for (let i = 0; i < 2; i++) {
        await openAndLeave(cli.url);
        for (const pid of childrenOf(cli.pid)) seen.add(pid);
      }
      expect(seen.size, cli.stderr()).toBeGreaterThanOrEqual(2);
      await expect.poll(() => childrenOf(cli.pid).length, { timeout: 20_000 }).toBe(0);
    },
    40_000,
  );

  it('a session evicted at the cap ends its stdio child', async () => {
    const bridge = keep(
      await startUpstreamBridge(
        { kind: 'stdio', command: process.execPath, args: [everythingEntry(), 'stdio'] },
        () => {},
        { idleMs: 0 },
      ),
    );
    const proxy = keep(await proxyOverBridge(bridge, { mode: 'record', maxSessions: 2, sessionIdleMs: 0 }));
    for (let i = 0; i < 4; i++) await openAndLeave(proxy.url);
    await expect.poll(() => bridge.pids().length, { timeout: 15_000 }).toBe(2);
    expect(proxy.endpoint.sessions.size).toBe(2);
  }, 40_000);
});

const NO_FDS = !HAS_PROCFS && 'open descriptors are counted in /proc (Linux)';
describe.skipIf(skipping(NO_FDS, 'connections are released'))('connections are released', () => {
  it('slow and malformed connections give their descriptors back; calls go on meanwhile', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(REPO, 'test/helpers/proxy-process.ts'),
        JSON.stringify({
          mode: 'replay',
          cacheDir: await tempDir(),
          limits: { headersMs: 6000, requestMs: 7000, checkMs: 100 },
        }),
      ],
      { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    keep({ close: async () => void child.kill('SIGKILL') });
    const url = await new Promise<string>((resolve) =>
      child.stdout
        ?.setEncoding('utf8')
        .on('data', (d: string) => /URL (\S+)/.test(d) && resolve(/URL (\S+)/.exec(d)?.[1] as string)),
    );
    const { hostname, port } = new URL(url);
    const pid = child.pid as number;
    const baseline = openFds(pid);

    const sockets: Socket[] = [];
    const answers: string[] = [];
    const open = (payload: string): Promise<void> =>
      new Promise((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(payload);
          resolve();
        });
        socket.setEncoding('utf8').on('data', (d: string) => answers.push(d.split('\r\n')[0]));
        socket.on('error', () => {});
        sockets.push(socket);
      });
    const host = `Host: ${hostname}:${port}\r\n`;
    for (let i = 0; i < 50; i++) {
      await open(`POST /mcp HTTP/1.1\r\n${host}`); // headers never finished
      await open(
        `POST /mcp HTTP/1.1\r\n${host}content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"jsonrpc"`,
      ); // body never finished
      await open('THIS IS NOT HTTP\r\n\r\n'); // malformed
    }
    keep({ close: async () => sockets.forEach((s) => s.destroy()) });
    // the slow ones are held for a while (what a descriptor leak would be), the malformed ones are dropped at once; a
    // busy machine may take a moment to accept them all (the timeouts leave seconds for that)
    await expect.poll(() => openFds(pid), { timeout: 4_000 }).toBeGreaterThan(baseline + 50);
    const ping = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    // our side never closes its sockets: the proxy must
    await expect
      .poll(() => sockets.filter((s) => s.destroyed || s.readableEnded).length, { timeout: 20_000 })
      .toBe(150);
    await expect.poll(() => openFds(pid), { timeout: 20_000 }).toBeLessThanOrEqual(baseline + 2);
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 400'))).toHaveLength(50);
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 408'))).toHaveLength(100);
  }, 60_000);
});
