import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BreakpointsState } from '../../src/shared/breakpoints.js';
import type { ProxyInfo, TrafficEvent } from '../../src/shared/api.js';
import { clientHome, type ClientHome } from '../helpers/client-configs.js';
import { answersOf, entryOf, type StdioEntry } from '../helpers/config-entry.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { apiOf, startUiProcess, type UiProcess } from '../helpers/ui-process.js';
import { startEverything } from '../fixtures/everything.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// Attach: a wrapped server that the agent starts itself shows its traffic in a running `mcp-rewind ui` (a real
// process, found through the data folder) and takes the app's rules, breakpoints and recording choice; it connects
// when the app starts later. Built CLI and renderer needed (`npm run build`).
const CLI = join(import.meta.dirname, '../../bin/mcp-rewind.js');
const run = promisify(execFile);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function open(entry: StdioEntry, name = 'attach-test-agent'): Promise<Client> {
  const client = new Client({ name, version: '2.0.0' });
  await client.connect(
    new StdioClientTransport({ command: entry.command, args: entry.args ?? [], env: entry.env, stderr: 'ignore' }),
  );
  return client;
}

const text = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? '') as string;

describe('attach: wrapped servers in the running app', () => {
  let home: ClientHome;
  let dataDir: string;
  let entry: StdioEntry;
  let ui: UiProcess | undefined;
  let api: Awaited<ReturnType<typeof apiOf>> | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    home = await clientHome();
    dataDir = await tempDir('rewind-data-');
    await run(process.execPath, [CLI, 'intercept', 'wrap', 'claude-desktop:everything', '--data-dir', dataDir], {
      env: { ...process.env, ...home.env },
    });
    entry = entryOf(home.files['claude-desktop'][0], ['mcpServers', 'everything']);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    api?.close();
    await ui?.stop();
    ui = api = undefined;
  });
  afterAll(removeTempDirs);

  const startUi = async (): Promise<NonNullable<typeof api>> => {
    ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    api = await apiOf(ui.origin, ui.token());
    return api;
  };
  const attachedProxy = (a: NonNullable<typeof api>, processes = 1): Promise<ProxyInfo> =>
    until('the attached proxy', async () =>
      (await a.call<ProxyInfo[]>('proxies.list')).find(
        (p) => p.name === 'claude-desktop:everything' && (p.attached?.processes ?? 0) >= processes,
      ),
    );

  it("streams the agent's exchanges to the app's timeline, named by the client's initialize", async () => {
    const a = await startUi();
    const answers = await answersOf(entry, 'attach-test-agent');
    expect(answers.echo).toEqual([{ type: 'text', text: 'Echo: through the wrapped entry' }]);
    const traffic = await until('the exchanges on the timeline', async () => {
      const events = (await a.call<TrafficEvent[]>('traffic.snapshot')).filter((e) => e.method === 'tools/call');
      return events.length >= 3 ? events : undefined;
    });
    const proxy = (await a.call<ProxyInfo[]>('proxies.list')).find((p) => p.name === 'claude-desktop:everything')!;
    expect(traffic.every((e) => e.proxyId === proxy.id)).toBe(true);
    expect(traffic.map((e) => e.tool)).toEqual(['echo', 'get-sum', 'get-env']);
    expect(traffic[0].response).toMatchObject({
      result: { content: [{ type: 'text', text: 'Echo: through the wrapped entry' }] },
    });
    const all = await a.call<TrafficEvent[]>('traffic.snapshot');
    expect(all.find((e) => e.method === 'initialize')?.request.params).toMatchObject({
      clientInfo: { name: 'attach-test-agent' },
    });
    expect(new Set(all.map((e) => e.seq)).size).toBe(all.length); // numbered by the app: never shared
  });

  it("takes the app's rules, breakpoints and recording choice for that server", async () => {
    const a = await startUi();
    const client = await open(entry);
    clients.push(client);
    const proxy = await attachedProxy(a);
    expect(proxy.attached?.clients).toEqual(['attach-test-agent']);
    await a.call('rules.set', {
      id: proxy.id,
      rules: { tools: [{ name: 'echo', behavior: { type: 'override', response: { text: 'from the app' } } }] },
    });
    await until('the rule applied', async () =>
      text(await client.callTool({ name: 'echo', arguments: { message: 'x' } })) === 'from the app' ? true : undefined,
    );
    await a.call('rules.set', { id: proxy.id, rules: { tools: [] } });

    await a.call('breakpoints.set', { proxyId: proxy.id, rules: [{ tool: 'get-sum', when: 'request' }] });
    await new Promise((r) => setTimeout(r, 300)); // the process takes the breakpoint at its next poll answer
    const pending = client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } });
    const paused = await until(
      'the paused call',
      async () => (await a.call<BreakpointsState>('breakpoints.list')).paused[0],
    );
    expect(paused).toMatchObject({ proxyId: proxy.id, tool: 'get-sum', stage: 'request', arguments: { a: 1, b: 1 } });
    await a.call('breakpoints.resume', { id: paused.id, arguments: { a: 20, b: 22 } });
    expect(text(await pending)).toContain('42');
    await a.call('breakpoints.set', { proxyId: proxy.id, rules: [] });

    const cassette = join(dataDir, 'chosen-in-the-app');
    await a.call('attach.record', { proxyId: proxy.id, dir: cassette });
    await until('recording', async () => ((await attachedProxy(a)).attached?.record === cassette ? true : undefined));
    await client.callTool({ name: 'echo', arguments: { message: 'recorded' } });
    await until('the recorded entry', async () =>
      (await readdir(cassette).catch(() => [])).some((f) => /tools_call_echo_/.test(f)) ? true : undefined,
    );
  });

  it('an HTTP server wrapped while the app runs: its URL points at a new proxy of the app, whose traffic is on the timeline', async () => {
    const everything = await startEverything('streamableHttp');
    try {
      const httpHome = await clientHome({ httpUrl: everything.url });
      const a = await startUi();
      await run(process.execPath, [CLI, 'intercept', 'wrap', 'cursor:remote', '--data-dir', dataDir], {
        env: { ...process.env, ...httpHome.env },
      });
      const url = entryOf(httpHome.files.cursor[0], ['mcpServers', 'remote']).url as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const proxy = await until('its proxy running', async () =>
        (await a.call<ProxyInfo[]>('proxies.list')).find((p) => p.url === url && p.state === 'running'),
      );
      expect(proxy).toMatchObject({
        name: 'cursor:remote',
        config: { mode: 'proxy-only', upstreamUrl: everything.url },
      });
      const client = new Client({ name: 'http-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      expect(text(await client.callTool({ name: 'echo', arguments: { message: 'over http' } }))).toBe(
        'Echo: over http',
      );
      await until('the call on the timeline', async () =>
        (await a.call<TrafficEvent[]>('traffic.snapshot')).find((e) => e.proxyId === proxy.id && e.tool === 'echo'),
      );
      await run(process.execPath, [CLI, 'intercept', 'unwrap', 'cursor:remote', '--data-dir', dataDir], {
        env: { ...process.env, ...httpHome.env },
      });
      await until('its proxy removed', async () =>
        (await a.call<ProxyInfo[]>('proxies.list')).some((p) => p.id === proxy.id) ? undefined : true,
      );
    } finally {
      await everything.close();
    }
  });

  it('a server started before the app connects when the app starts, and works on with no app', async () => {
    const client = await open(entry);
    clients.push(client);
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'before' } }))).toBe('Echo: before');
    const a = await startUi();
    const proxy = await attachedProxy(a);
    expect(proxy.state).toBe('running');
    await client.callTool({ name: 'echo', arguments: { message: 'after' } });
    await until('the call made after the app started', async () =>
      (await a.call<TrafficEvent[]>('traffic.snapshot')).find((e) => e.proxyId === proxy.id && e.tool === 'echo'),
    );
    await ui!.stop();
    ui = undefined;
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'app gone' } }))).toBe('Echo: app gone');
  });
});
