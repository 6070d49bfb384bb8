/**
 * A full disk, for real: a small tmpfs filled to ENOSPC (test/helpers/full-disk.ts; skipped, saying why, where it
 * cannot be mounted). While recording, the proxy keeps answering, but the exchange says "not recorded: ENOSPC" (the
 * timeline's flags, the --verbose line), the failure is logged, and the CLI's record run ends with exit status 1;
 * the app's proxies.create on a full data folder fails instead of saying ok with nothing saved.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { textOf } from '../engine/robustness-helpers.js';
import { smallTmpfs } from '../helpers/full-disk.js';
import { keeper } from '../helpers/keep.js';
import { startCli } from '../helpers/procfs.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const echo = (text: string) => ({ name: 'echo', arguments: { text } });

describe('a full disk', () => {
  it('while the CLI records: every call answered, the failed ones flagged and logged, the run ends with status 1', async (ctx) => {
    const disk = await smallTmpfs();
    if ('skip' in disk) return ctx.skip();
    keep(disk);
    const upstream = keep(await startSdkServer());
    const cassette = path.join(disk.dir, 'cassette');
    const cli = keep(await startCli(['--url', upstream.url, '--cache', cassette, '-v']));
    const client = keep(await connectClient(cli.url));
    expect(textOf(await client.client.callTool(echo('before')))).toBe('echo: before');
    await disk.fill();
    expect(textOf(await client.client.callTool(echo('full 1')))).toBe('echo: full 1');
    expect(textOf(await client.client.callTool(echo('full 2')))).toBe('echo: full 2');
    await disk.free();
    expect(textOf(await client.client.callTool(echo('after')))).toBe('echo: after');
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(1);
    const stderr = cli.stderr();
    expect(stderr.match(/cassette: could not record tools_call_echo_\w+: ENOSPC/g)).toHaveLength(2);
    expect(stderr.match(/^record tools\/call echo .*$/gm)).toHaveLength(2); // before, after
    expect(stderr.match(/^live {3}tools\/call echo .*\[not recorded: ENOSPC\]$/gm)).toHaveLength(2);
    expect(stderr).toMatch(
      /2 recording\(s\) could not be written to the cassette \(first: tools_call_echo_\w+: ENOSPC[^)]*\); exit status 1/,
    );
    const recorded = await Promise.all(
      (await distilledFiles(cassette))
        .filter((f) => f.includes('tools_call_echo'))
        .map((f) => readFile(path.join(cassette, f), 'utf8')),
    );
    expect(recorded.map((text) => (JSON.parse(text) as { arguments: { text: string } }).arguments.text).sort()).toEqual(
      ['after', 'before'],
    );
  });

  it('a record run in which everything was recorded ends with status 0', async () => {
    const upstream = keep(await startSdkServer());
    const cli = keep(await startCli(['--url', upstream.url, '--cache', path.join(await tempDir(), 'c')]));
    const client = keep(await connectClient(cli.url));
    await client.client.callTool(echo('fine'));
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  /** an AppController (the UI API's engine) whose data folder, and cassettes, are on the small tmpfs */
  function appOn(dir: string) {
    const controller = keep(new AppController({ dataDir: path.join(dir, 'data'), log: () => {} }));
    return createApiHandlers(controller, { shell: 'browser', version: '0.0.0-test' });
  }

  it('in the app: a recording proxy on a full disk answers, and the exchange on the timeline says "not recorded: ENOSPC"', async (ctx) => {
    const disk = await smallTmpfs();
    if ('skip' in disk) return ctx.skip();
    keep(disk);
    const api = appOn(disk.dir);
    const traffic: TrafficEvent[] = [];
    api.on('traffic', (event) => void traffic.push(event));
    const upstream = keep(await startSdkServer());
    const info = (await api.call('proxies.create', {
      mode: 'record',
      upstreamUrl: upstream.url,
      cacheDir: path.join(disk.dir, 'cassette'),
    })) as {
      url: string;
    };
    const client = keep(await connectClient(info.url));
    expect(textOf(await client.client.callTool(echo('room')))).toBe('echo: room');
    await disk.fill();
    expect(textOf(await client.client.callTool(echo('full')))).toBe('echo: full');
    await expect
      .poll(() =>
        traffic.filter((e) => e.tool === 'echo').map((e) => [e.request.params?.arguments, e.cassette, e.flags]),
      )
      .toEqual([
        [{ text: 'room' }, 'recorded', undefined],
        [{ text: 'full' }, 'none', ['not recorded: ENOSPC']],
      ]);
  });

  it('in the app: proxies.create on a full data folder fails, naming ENOSPC, and adds nothing; with room again it is saved', async (ctx) => {
    const disk = await smallTmpfs();
    if ('skip' in disk) return ctx.skip();
    keep(disk);
    const api = appOn(disk.dir);
    const upstream = keep(await startSdkServer());
    await disk.fill();
    const refused = await api
      .call('proxies.create', { mode: 'proxy-only', upstreamUrl: upstream.url, name: 'second' })
      .then(
        () => 'ok',
        (error: { message: string }) => error.message,
      );
    expect(refused).toMatch(/^the proxy was not added: cannot write .*workspace\.json: ENOSPC/);
    expect(await api.call('proxies.list', {})).toEqual([]);
    await disk.free();
    await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: upstream.url, name: 'second' });
    const saved = JSON.parse(await readFile(path.join(disk.dir, 'data', 'workspace.json'), 'utf8')) as {
      proxies: Array<{ name: string }>;
    };
    expect(saved.proxies.map((p) => p.name)).toEqual(['second']);
  });
});
