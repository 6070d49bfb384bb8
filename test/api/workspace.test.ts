import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { SettingsFile } from '../../src/main/api/files/settings-file.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, keep, textOf, upstream } from './harness.js';

// The inspector workspace's engine side: honest proxy states, nothing lost on restart, scoped clear, one list of
// recent folders, and what the timeline's detail shows (original vs rewritten, timing, HTTP). Real SDK peers.

afterEach(cleanup);

/** A second run of the app on the same data folder (a fresh SettingsFile: nothing cached from the first run). */
function restart(dataDir: string, logs: string[] = []) {
  const settings = new SettingsFile(dataDir, (line) => void logs.push(line));
  const controller = keep(
    new AppController({ dataDir, settings, log: (line, level) => void logs.push(`${level}: ${line}`) }),
  );
  return {
    controller,
    api: createApiHandlers(controller, { shell: 'browser', version: '0.0.0-test' }, settings),
    logs,
  };
}

describe('honest proxy states', () => {
  it('is running only once the upstream answered initialize; an unreachable URL fails with the reason, and Retry works', async () => {
    const { api } = await app();
    const server = await upstream();
    const port = Number(new URL(server.url).port);
    await server.close();
    const states: string[] = [];
    api.on('proxies', (list) => void states.push(list[0]?.state ?? ''));
    const info = await call(api, 'proxies.create', {
      name: 'down',
      mode: 'proxy-only',
      upstreamUrl: `http://127.0.0.1:${port}/mcp`,
    });
    expect(info).toMatchObject({ state: 'failed', failure: 'upstream' });
    expect(info.error).toMatch(
      new RegExp(`^Upstream URL http://127\\.0\\.0\\.1:${port}/mcp did not answer an MCP initialize: .*ECONNREFUSED`),
    );
    expect(info.url).toBeUndefined();
    expect(states).toContain('starting');
    expect(states).not.toContain('running');

    const again = await upstream({ port });
    expect(again.url).toContain(`:${port}/`);
    expect(await call(api, 'proxies.start', { id: info.id })).toMatchObject({
      state: 'running',
      error: undefined,
      failure: undefined,
    });
  });

  it('a running proxy whose upstream stops answering says so, until it answers again', async () => {
    const { api } = await app();
    const server = await upstream();
    const port = Number(new URL(server.url).port);
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const c = await client(info.url!);
    await c.client.callTool({ name: 'echo', arguments: { text: 'one' } });
    await server.close();
    await c.client.callTool({ name: 'echo', arguments: { text: 'two' } }).catch(() => undefined);
    const down = (await call(api, 'proxies.list', {}))[0];
    expect(down).toMatchObject({
      state: 'running',
      upstreamDown: expect.stringContaining(`upstream ${server.url} unavailable`),
    });
    await upstream({ port });
    await expect
      .poll(
        async () => {
          await c.client.callTool({ name: 'echo', arguments: { text: 'three' } }).catch(() => undefined);
          return (await call(api, 'proxies.list', {}))[0].upstreamDown;
        },
        { timeout: 10_000 },
      )
      .toBeUndefined();
  });

  it('a stdio command that does not start fails naming the command, not the bridge', async () => {
    const { api } = await app();
    const info = await call(api, 'proxies.create', {
      mode: 'proxy-only',
      upstreamCommand: 'mcp-rewind-no-such-command --flag',
    });
    expect(info).toMatchObject({ state: 'failed', failure: 'upstream' });
    expect(info.error).toBe(
      'stdio command "mcp-rewind-no-such-command --flag" did not start: spawn mcp-rewind-no-such-command ENOENT',
    );
    const exits = await call(api, 'proxies.create', {
      mode: 'proxy-only',
      upstreamCommand: `${JSON.stringify(process.execPath)} -e "process.exit(3)"`,
    });
    expect(exits.error).toMatch(
      /^stdio command ".*" did not answer an MCP initialize: upstream process \d+ \(".*"\) exited \(code 3\) before answering$/,
    );
    expect(info.error).not.toMatch(/127\.0\.0\.1/);
  });

  it('a stdio command that says nothing in time fails with the last lines it printed on stderr', async () => {
    const { api } = await app();
    const script =
      "console.error('starting'); console.error(''); console.error('API_KEY is not set'); setInterval(() => {}, 1000)";
    const info = await call(api, 'proxies.create', {
      mode: 'proxy-only',
      upstreamCommand: `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`,
    });
    expect(info).toMatchObject({ state: 'failed', failure: 'upstream' });
    expect(info.error).toMatch(
      /^stdio command ".*" did not answer an MCP initialize: .*\(it printed: starting \/ API_KEY is not set\)$/,
    );
  }, 30_000);

  it('replay of a missing folder fails and never creates it', async () => {
    const { api } = await app();
    const missing = join(await tempDir(), 'not-there');
    const info = await call(api, 'proxies.create', { mode: 'replay', cacheDir: missing });
    expect(info).toMatchObject({
      state: 'failed',
      failure: 'cassette',
      error: `Cassette folder ${missing} does not exist: replay answers from a recorded cassette and never creates one`,
    });
    expect(existsSync(missing)).toBe(false);
  });

  it('uses the default cassette folder when none is given, and makes generated names unique; a taken name is refused', async () => {
    const { api, dataDir } = await app();
    const server = await upstream();
    const a = await call(api, 'proxies.create', { mode: 'record', upstreamUrl: server.url });
    expect(a.config.cacheDir).toBe(join(dataDir, 'cassettes'));
    const b = await call(api, 'proxies.create', { mode: 'record', upstreamUrl: server.url });
    expect([a.name, b.name]).toEqual([`record ${new URL(server.url).host}`, `record ${new URL(server.url).host} 2`]);
    await call(api, 'proxies.create', { name: 'mine', mode: 'proxy-only', upstreamUrl: server.url });
    expect(
      await failure(call(api, 'proxies.create', { name: 'Mine', mode: 'proxy-only', upstreamUrl: server.url })),
    ).toBe('Name: a proxy named "Mine" exists already; choose another name');
  });
});

describe('nothing lost on restart', () => {
  it('brings back proxies, rules and breakpoints; running ones start again on their port', async () => {
    const first = await app();
    const server = await upstream();
    const running = await call(first.api, 'proxies.create', {
      name: 'live',
      mode: 'proxy-only',
      upstreamUrl: server.url,
    });
    const stopped = await call(first.api, 'proxies.create', {
      name: 'idle',
      mode: 'record',
      upstreamUrl: server.url,
      cacheDir: await tempDir(),
    });
    await call(first.api, 'proxies.stop', { id: stopped.id });
    const rules = {
      passthrough: true,
      tools: [
        { name: 'echo', behavior: { type: 'override' as const, response: { text: 'kept' } } },
        { name: 'add', hidden: true },
      ],
    };
    await call(first.api, 'rules.set', { id: running.id, rules });
    await call(first.api, 'breakpoints.set', { proxyId: running.id, rules: [{ tool: 'add', when: 'response' }] });
    await first.controller.close();
    const file = join(first.dataDir, 'workspace.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = restart(first.dataDir);
    const list = await call(second.api, 'proxies.list', {});
    expect(list.map((p) => [p.id, p.name])).toEqual([
      [running.id, 'live'],
      [stopped.id, 'idle'],
    ]);
    await expect.poll(async () => (await call(second.api, 'proxies.list', {}))[0].state).toBe('running');
    const back = (await call(second.api, 'proxies.list', {}))[0];
    expect(back.url).toBe(running.url); // the same port: client configs stay valid
    expect((await call(second.api, 'proxies.list', {}))[1].state).toBe('stopped');
    expect((await call(second.api, 'rules.get', { id: running.id })).rules).toEqual(rules);
    expect((await call(second.api, 'breakpoints.list', {})).rules[running.id]).toMatchObject([
      { tool: 'add', when: 'response' },
    ]);
    const c = await client(back.url!);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('kept');
    expect((await c.client.listTools()).tools.map((t) => t.name)).not.toContain('add'); // hidden: one rule, one tool
    const hiddenCall = await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).catch((e: Error) => e);
    expect(String(hiddenCall instanceof Error ? hiddenCall.message : textOf(hiddenCall))).toMatch(/Unknown tool: add/);
    const created = await call(second.api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    expect(created.id).not.toBe(running.id);
  });

  it('restores nothing when the setting is off, and survives an unusable file', async () => {
    const first = await app();
    const server = await upstream();
    await call(first.api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    await call(first.api, 'settings.set', { restoreWorkspace: false });
    await first.controller.close();
    expect(await call(restart(first.dataDir).api, 'proxies.list', {})).toEqual([]);

    const dataDir = await tempDir();
    writeFileSync(join(dataDir, 'workspace.json'), '{ broken');
    const logs: string[] = [];
    expect(await call(restart(dataDir, logs).api, 'proxies.list', {})).toEqual([]);
    expect(existsSync(join(dataDir, 'workspace.json.bad'))).toBe(true);
    expect(logs.some((l) => l.includes('was not usable'))).toBe(true);
  });
});

describe('timeline data', () => {
  it('clears one proxy, the listed exchanges, or all', async () => {
    const { api } = await app();
    const server = await upstream();
    const a = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const b = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    for (const p of [a, b]) {
      const c = await client(p.url!);
      await c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
      await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    }
    const all = await call(api, 'traffic.snapshot', {});
    const ofA = all.filter((e) => e.proxyId === a.id).length;
    const first = await call(api, 'traffic.clear', { proxyId: a.id });
    expect(first).toEqual({ cleared: ofA, undo: expect.any(String) });
    expect(await call(api, 'traffic.undoClear', { undo: first.undo! })).toEqual({ restored: ofA });
    expect((await call(api, 'traffic.snapshot', {})).map((e) => e.seq)).toEqual(all.map((e) => e.seq)); // back in place
    await call(api, 'traffic.clear', { proxyId: a.id });
    const echoOfB = all.filter((e) => e.proxyId === b.id && e.tool === 'echo');
    const second = await call(api, 'traffic.clear', {
      items: echoOfB.map((e) => ({ proxyId: e.proxyId, seq: e.seq })),
    });
    expect(second.cleared).toBe(1);
    const left = await call(api, 'traffic.snapshot', {});
    expect(left.every((e) => e.proxyId === b.id && e.tool !== 'echo')).toBe(true);
    expect((await call(api, 'traffic.clear', {})).cleared).toBe(left.length);
    expect(await failure(call(api, 'traffic.undoClear', { undo: second.undo! }))).toContain('can no longer be undone'); // a later clear came
  });

  it('remembers opened cassette folders in the one list of the settings', async () => {
    const { api } = await app();
    const [x, y] = [await tempDir(), await tempDir()];
    await call(api, 'cassettes.list', { dir: x, remember: true });
    await call(api, 'cassettes.list', { dir: y, remember: true });
    await call(api, 'cassettes.list', { dir: x }); // a refresh is not an open
    expect((await call(api, 'settings.get', {})).settings.recentFolders).toEqual([y, x]);
    await call(api, 'cassettes.list', { dir: x, remember: true });
    expect((await call(api, 'settings.get', {})).settings.recentFolders).toEqual([x, y]);
  });

  it('keeps the original of what a rule or a breakpoint changed, the timing and the upstream HTTP answer', async () => {
    const { api } = await app();
    const server = await upstream();
    const p = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    await call(api, 'rules.set', {
      id: p.id,
      rules: { tools: [{ name: 'add', behavior: { type: 'inject', template: 'sum: {original_text}' } }] },
    });
    const state = await call(api, 'breakpoints.set', { proxyId: p.id, rules: [{ tool: 'echo', when: 'request' }] });
    expect(state.rules[p.id]).toHaveLength(1);
    const traffic: TrafficEvent[] = [];
    api.on('traffic', (e) => void traffic.push(e));
    const c = await client(p.url!);
    await c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    const echo = c.client.callTool({ name: 'echo', arguments: { text: 'from the client' } });
    await expect.poll(async () => (await call(api, 'breakpoints.list', {})).paused.length).toBe(1);
    const paused = (await call(api, 'breakpoints.list', {})).paused[0];
    await call(api, 'breakpoints.resume', { id: paused.id, arguments: { text: 'edited' } });
    expect(textOf(await echo)).toBe('echo: edited');
    let progress = 0;
    await c.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, {
      onprogress: () => void progress++,
    });

    await expect.poll(() => traffic.filter((e) => e.tool).length).toBe(3);
    const add = traffic.find((e) => e.tool === 'add')!;
    expect(add.original?.response).toMatchObject({ result: { content: [{ type: 'text', text: '5' }] } });
    expect(add.response).toMatchObject({ result: { content: [{ type: 'text', text: 'sum: 5' }] } });
    expect(add.http).toMatchObject({
      status: 200,
      headers: expect.objectContaining({ 'content-type': expect.any(String) }),
    });
    expect(add.timing?.sentUpstream).toBeGreaterThanOrEqual(0);
    expect(add.timing!.firstByte!).toBeGreaterThanOrEqual(add.timing!.sentUpstream!);
    expect(add.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const edited = traffic.find((e) => e.tool === 'echo')!;
    expect(edited.original?.request?.params).toMatchObject({ arguments: { text: 'from the client' } });
    expect(edited.request.params).toMatchObject({ arguments: { text: 'edited' } });
    expect(edited.flags).toContain('arguments edited at a breakpoint');
    const streamed = traffic.find((e) => e.tool === 'progress')!;
    expect(progress).toBe(2);
    expect(streamed.timing?.stream).toHaveLength(streamed.stream.length);
    expect(
      streamed.timing!.stream!.every((t, i, all) => t >= 0 && t <= streamed.durationMs && (i === 0 || t >= all[i - 1])),
    ).toBe(true);
    expect(streamed.original).toBeUndefined(); // nothing changed it
  });
});

it('the settings file and workspace file are separate and readable JSON', async () => {
  const { api, dataDir, controller } = await app();
  const server = await upstream();
  await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
  await controller.close();
  const saved = JSON.parse(readFileSync(join(dataDir, 'workspace.json'), 'utf8')) as {
    version: number;
    proxies: unknown[];
  };
  expect(saved.version).toBe(1);
  expect(saved.proxies).toHaveLength(1);
});
