/**
 * Names that are also Object.prototype's (security issue, third pass, item 7): a tool, an argument or an entry key
 * named `constructor`, `toString`, `__proto__`, `hasOwnProperty` or `valueOf` is a name like any other. Looked up in a
 * plain object, `constructor` found Object itself: verify threw a TypeError, `export --har` wrote requests without a
 * method, opening the folder in the UI failed, replay answered `constructor` with a broken response; assigned, a
 * `__proto__` argument vanished from the export. Through the real surfaces: the built CLI as a process (build first),
 * real HTTP, the UI's WebSocket API as the browser shell serves it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../src/shared/api.js';
import type { Har } from '../src/main/engine/cassette/export.js';
import { connectClient } from './fixtures/client.js';
import { namedToolsServer, runCli, uiApi } from './helpers/hostile.js';
import { startCli } from './helpers/procfs.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
const kept = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);

/** The JSON-RPC requests of a HAR's entries, as their bodies say. */
const harRequests = (
  har: Har,
): Array<{ method?: unknown; params?: { name?: unknown; arguments?: Record<string, unknown> } }> =>
  har.log.entries.map((e) => JSON.parse(e.request.postData?.text ?? 'null') as { method?: unknown });

describe('tools named like Object.prototype’s members', () => {
  it('record → verify → export (single file, HAR) → open in the UI: every tool and argument is there', async () => {
    const dir = path.join(await tempDir('rewind-proto-'), 'cassette');
    const upstream = kept(await namedToolsServer(NAMES));
    const cli = kept(await startCli(['--url', upstream.url, '--cache', dir]));
    const client = kept(await connectClient(cli.url));
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(NAMES);
    for (const name of NAMES) {
      expect(await client.client.callTool({ name, arguments: {} })).toEqual({
        content: [{ type: 'text', text: `called ${name}` }],
      });
      await client.client.callTool({
        name,
        arguments: JSON.parse(`{${JSON.stringify(name)}: "x"}`) as Record<string, unknown>,
      });
    }
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);

    const verify = await runCli(['verify', '--cache', dir, '--url', upstream.url]);
    expect(verify.stderr).not.toMatch(/TypeError/);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    for (const name of NAMES) expect(verify.stdout).toMatch(new RegExp(`ok\\s+tools_call_${name}_[0-9a-f]{16}\\n`));

    const out = path.dirname(dir);
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
    const har = JSON.parse(readFileSync(path.join(out, 'c.har'), 'utf8')) as Har;
    const calls = harRequests(har).filter((r) => r.method === 'tools/call');
    expect(har.log.entries.every((e) => e.request.method === 'POST')).toBe(true);
    expect(harRequests(har).every((r) => typeof r.method === 'string')).toBe(true);
    expect(calls.map((r) => r.params?.name)).toEqual(NAMES.flatMap((n) => [n, n]));
    // the argument named `__proto__` is still an argument in the single file (it was assigned away as a prototype)
    const single = JSON.parse(readFileSync(path.join(out, 'c.json'), 'utf8')) as {
      entries: Array<{ entry: { name?: string; arguments?: object } }>;
    };
    const args = single.entries
      .filter((e) => e.entry.name === '__proto__')
      .map((e) => Object.keys(e.entry.arguments ?? {}));
    expect(args).toEqual([[], ['__proto__']]);

    const ui = kept(await uiApi());
    for (const source of [dir, path.join(out, 'c.json'), path.join(out, 'c.har')]) {
      const opened = await ui.api.call('sources.open', { path: source });
      const events = ((await ui.api.call('traffic.snapshot', {})) as TrafficEvent[]).filter(
        (e) => e.proxyId === opened.id,
      );
      expect(
        events.filter((e) => e.method === 'tools/call').map((e) => e.tool),
        source,
      ).toEqual(NAMES.flatMap((n) => [n, n]));
    }
  });
});

describe('entries keyed by Object.prototype’s member names', () => {
  /** A hand-made folder: an initialize entry and one bare entry per name (`2 constructor.json`…). */
  async function bareFolder(): Promise<string> {
    const dir = await tempDir('rewind-proto-');
    writeFileSync(
      path.join(dir, '1 initialize.json'),
      JSON.stringify({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 's', version: '1' },
      }),
    );
    NAMES.forEach((name, i) =>
      writeFileSync(
        path.join(dir, `${i + 2} ${name}.json`),
        JSON.stringify({ content: [{ type: 'text', text: name }] }),
      ),
    );
    return dir;
  }

  it('verify skips them by name, export --har gives each request a method, the UI opens the folder', async () => {
    const dir = await bareFolder();
    const upstream = kept(await namedToolsServer(['echo']));
    const verify = await runCli(['verify', '--cache', dir, '--url', upstream.url]);
    expect(verify.stderr).not.toMatch(/TypeError/);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    for (const name of NAMES)
      expect(verify.stdout).toContain(`skip   ${name}  cannot send again: the key "${name}" does not tell the request`);

    const harFile = path.join(dir, '..', `${path.basename(dir)}.har`);
    const run = await runCli(['export', '--cache', dir, '--har', harFile]);
    expect(run.code, run.stderr).toBe(0);
    const requests = harRequests(JSON.parse(readFileSync(harFile, 'utf8')) as Har);
    expect(requests.map((r) => r.method)).toEqual(['initialize', '?', '?', '?', '?', '?']);

    const ui = kept(await uiApi());
    const opened = await ui.api.call('sources.open', { path: dir });
    expect(opened.exchanges).toBe(1);
    for (const name of NAMES)
      expect(opened.skipped.join('\n')).toContain(`the key "${name}" does not tell the request`);
  });

  it('replay answers a request for those methods with a JSON-RPC error, and keeps serving', async () => {
    const dir = await bareFolder();
    const cli = kept(await startCli(['--replay', '--cache', dir]));
    const post = async (
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; headers: Headers; json: unknown }> => {
      const res = await fetch(cli.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        json: JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null')),
      };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-06-18',
    };
    for (const [i, method] of NAMES.entries()) {
      const answer = await post({ jsonrpc: '2.0', id: i + 1, method, params: {} }, session);
      expect(answer.json, method).toMatchObject({ jsonrpc: '2.0', id: i + 1, error: { code: -32601 } });
    }
    expect(await post({ jsonrpc: '2.0', id: 99, method: 'ping' }, session)).toMatchObject({
      status: 200,
      json: { id: 99, result: {} },
    });
  });
});
