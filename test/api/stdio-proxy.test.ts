import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { app, call, cleanup, client, failure, textOf } from './harness.js';
import { startEverything } from '../fixtures/everything.js';
import { tempDir } from '../helpers/temp.js';

afterEach(cleanup);

/** pids of processes whose command line contains `marker` */
function processesWith(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => line.trim().split(/\s+/)[0]);
}

describe('a UI proxy in front of an stdio server', () => {
  it('spawns the command per client session, records its traffic, and ends it when stopped', async () => {
    const { api } = await app();
    const ev = await startEverything('stdio'); // gives the command line; nothing runs yet
    const marker = `rewind-stdio-${process.pid}-${Date.now()}`;
    const upstreamCommand = [ev.command, ...ev.args.map((a) => `'${a}'`), `--marker=${marker}`].join(' ');
    const info = await call(api, 'proxies.create', {
      mode: 'record',
      upstreamCommand,
      cacheDir: await tempDir(),
      name: 'stdio',
    });
    expect(info.state).toBe('running');
    const c = await client(info.url as string);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }))).toBe(
      'Echo: over stdio',
    );
    expect(processesWith(marker).length).toBeGreaterThan(0);
    await expect
      .poll(async () => (await call(api, 'traffic.snapshot', {})).filter((e) => e.tool === 'echo').length)
      .toBe(1);
    await c.close();
    await call(api, 'proxies.stop', { id: info.id });
    await expect.poll(() => processesWith(marker).length, { timeout: 10_000 }).toBe(0);
  });

  it('refuses a URL and a command together, naming the field', async () => {
    const { api } = await app();
    const message = await failure(
      call(api, 'proxies.create', {
        mode: 'proxy-only',
        upstreamUrl: 'http://127.0.0.1:9/mcp',
        upstreamCommand: 'node x.js',
      }),
    );
    expect(message).toBe('stdio command: give either an Upstream URL or a stdio command, not both'); // the form's labels
  });
});
