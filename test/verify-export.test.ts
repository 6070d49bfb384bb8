/**
 * `mcp-rewind verify` and `mcp-rewind export` (issue 3, "CI commands"): a cassette recorded from the SDK fixture
 * through the proxy, then verified against the same server (no drift), a changed one (DRIFT, JUnit failure) and one
 * with fewer tools ("removed"); exported to a single file that `--cache FILE` replays with the upstream gone, and to
 * HAR 1.2 with no secret in it.
 *
 * The CLI cases spawn the built command: run `npx tsc -p tsconfig.cli.json` first (`npm test` does).
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { exportHar, exportSingleFile, type Har } from '../src/main/engine/cassette/export.js';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { CassetteStore } from '../src/main/engine/cassette/store.js';
import { verifyCassette } from '../src/main/engine/verify/verify.js';
import { junitXml } from '../src/main/cli/verify-command.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from './fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from './fixtures/sdk-server.js';
import { startCustomUpstream } from './helpers/custom-upstream.js';
import { startEverything } from './fixtures/everything.js';
import { startUpstreamBridge } from '../src/main/engine/transports/upstream-bridge.js';
import { distilledFiles, removeTempDirs, tempDir } from './helpers/temp.js';
import { REPO, runCli } from './helpers/hostile.js';

const SECRET = 'Bearer sk-verify-export-very-secret-4242';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
async function upstream(): Promise<SdkServerHandle> {
  const server = await startSdkServer();
  open.push(server);
  return server;
}
async function proxy(options: ProxyOptions): Promise<RunningProxy> {
  const p = await startProxy(options);
  open.push(p);
  return p;
}
async function client(url: string, headers?: Record<string, string>): Promise<ConnectedClient> {
  const c = await connectClient(url, { headers });
  open.push(c);
  return c;
}

/** What a client sees of the fixture (streaming included: progress and a sampling round trip). */
async function session(c: ConnectedClient) {
  return {
    tools: await c.client.listTools(),
    echo: await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } }),
    add: await c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }),
    fail: await c.client.callTool({ name: 'fail', arguments: {} }),
    progress: await c.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, {
      onprogress: () => {},
    }),
    sample: await c.client.callTool({ name: 'sample', arguments: { prompt: 'hi' } }),
    resources: await c.client.listResources(),
    resource: await c.client.readResource({ uri: 'fixture://hello' }),
    prompts: await c.client.listPrompts(),
    prompt: await c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
  };
}

/** Records the fixture through a record-mode proxy, with a secret Authorization header on every request. */
async function record(server: SdkServerHandle) {
  const cacheDir = await tempDir();
  const recording = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
  const c = await client(recording.url, { Authorization: SECRET });
  const live = await session(c);
  await c.close();
  await recording.close();
  return { cacheDir, live };
}

const echoKey = keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });

describe('mcp-rewind verify', () => {
  it('looks for the server notifications filed after an exchange, never sends them: one the server no longer sends is drift', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    // what the recorder files when the server notifies on its GET stream after initialize (this one never does)
    await writeFile(
      path.join(cacheDir, '999 after_initialize.json'),
      JSON.stringify({ $rewind: 1, method: 'notifications/tools/list_changed', params: {}, result: {} }),
    );
    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: server.url });
    expect(report.results.find((r) => r.key === 'after_initialize')).toMatchObject({
      status: 'drift',
      method: 'notifications/tools/list_changed',
      changes: ['notifications/tools/list_changed: recorded, not sent by the live server'],
    });
    expect(report.counts).toMatchObject({ drift: 1, skipped: 0 }); // the recorded requests all matched
  });

  it('finds no drift against the recorded server, then DRIFT on the echo key once its results change (CLI, JUnit)', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    const junit = path.join(await tempDir(), 'verify.xml');

    const same = await runCli(['verify', '--cache', cacheDir, '--url', server.url, '--junit', junit]);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/no drift/);
    expect(same.stdout).not.toMatch(/DRIFT/);
    expect(same.stdout).toMatch(new RegExp(`ok\\s+${echoKey}`));
    expect(await readFile(junit, 'utf8')).not.toContain('<failure');

    server.setEchoPrefix('changed: ');
    const changed = await runCli(['verify', '--cache', cacheDir, '--url', server.url, '--junit', junit]);
    expect(changed.code).toBe(1);
    const driftLines = changed.stdout.split('\n').filter((l) => l.includes('DRIFT '));
    expect(driftLines).toHaveLength(1);
    expect(driftLines[0]).toContain(echoKey);
    expect(driftLines[0]).toMatch(/result changed/);
    expect(changed.stdout).toMatch(/1 drift/);

    const xml = await readFile(junit, 'utf8');
    expectWellFormed(xml);
    expect(xml).toMatch(/<testsuite name="mcp-rewind verify" tests="\d+" failures="1"/);
    expect(xml).toMatch(
      new RegExp(`<testcase name="${echoKey}"[^>]*>\\s*<failure message="result changed[^"]*" type="drift">`),
    );
    expect((xml.match(/<testcase /g) ?? []).length).toBe((await distilledFiles(cacheDir)).length);
  });

  it('reports tools removed from a server that lost them', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    await server.close();
    const smaller = await startCustomUpstream(() => {
      const s = new McpServer({ name: 'fixture-server', version: '1.0.0' });
      s.registerTool(
        'echo',
        { description: 'Echo the text back with a prefix', inputSchema: { text: z.string() } },
        async ({ text }) => ({
          content: [{ type: 'text', text: `echo: ${text}` }],
        }),
      );
      return s.server;
    });
    open.push(smaller);

    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: smaller.url });
    const list = report.results.find((r) => r.key === 'tools_list');
    expect(list?.status).toBe('drift');
    expect(list?.reason).toMatch(/removed: .*add/);
    expect(list?.reason).toMatch(/removed: .*fail/);
    expect(report.results.find((r) => r.key === echoKey)?.status).toBe('ok');
    expect(report.results.find((r) => r.key.startsWith('tools_call_add_'))?.status).toBe('drift');

    const cli = await runCli(['verify', '--cache', cacheDir, '--url', smaller.url]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/DRIFT\s+tools_list\s+tools removed: add, counter, progress, sample, elicit, fail/);
  });

  it('--match-ignore: requests differing only in ignored paths share their recorded results', async () => {
    const server = await upstream();
    const dir = await tempDir();
    const store = await CassetteStore.open(dir, { watch: false });
    const entry = (nonce: number, text: string) => {
      const params = { name: 'echo', arguments: { text: 'x', nonce } };
      return store.add('tools/call', keyFor({ method: 'tools/call', params }), {
        name: 'echo',
        arguments: params.arguments,
        result: { content: [{ type: 'text', text }] },
      });
    };
    await entry(1, 'echo: x');
    const stale = await entry(2, 'stale');
    store.close();
    const strict = await verifyCassette({ dir, upstreamUrl: server.url });
    expect(strict.results.find((r) => r.key === stale.key)?.status).toBe('drift');
    const loose = await verifyCassette({ dir, upstreamUrl: server.url, matchIgnore: ['arguments.nonce'] });
    expect(loose.drift).toBe(false);
  });

  it('sends mcp-rewind entries without a tool name again, decoding the name from the key', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    await cp(path.join(REPO, 'test/fixtures/mcp-rewind-cache'), cacheDir, { recursive: true });
    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: server.url });
    const byKey = Object.fromEntries(report.results.map((r) => [r.key, r]));
    expect(byKey['tools_call_echo_cbbbdcd27692344d']).toMatchObject({ method: 'tools/call', status: 'drift' }); // "echo: hello" ≠ "hello from mcp-rewind"
    expect(byKey['tools_call_add_206f7b5543e6f2ef']).toMatchObject({ status: 'skipped' }); // bare result: arguments unknown
    expect(byKey['initialize']).toMatchObject({ status: 'info' });
    expect(byKey['initialize'].reason).toContain('serverInfo recorded-by-mcp-rewind 3.1.4 → fixture-server 1.0.0');
  });

  it('verifies against a stdio server given with --upstream-command', async () => {
    const ev = await startEverything('stdio');
    open.push(ev);
    const bridge = await startUpstreamBridge({ kind: 'stdio', command: ev.command, args: ev.args }, () => {});
    open.push(bridge);
    const cacheDir = await tempDir();
    const recording = await proxy({ mode: 'record', upstreamUrl: bridge.url, cacheDir });
    const c = await client(recording.url);
    await c.client.listTools();
    await c.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } });
    await c.close();
    await recording.close();

    const command = [ev.command, ...ev.args].map((w) => (/[\s'"]/.test(w) ? `'${w}'` : w)).join(' ');
    const result = await runCli(['verify', '--cache', cacheDir, '--upstream-command', command]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/ok\s+tools_call_get-sum_/);
    expect(result.stdout).toMatch(/ok\s+tools_list/);
    expect(result.stdout).toContain('(stdio)');
  });

  it('escapes every key and reason in the JUnit XML', () => {
    const xml = junitXml({
      upstream: 'http://h/mcp?a=1&b=2',
      results: [
        {
          key: 'tools_call_a<b>&"c\u0001',
          method: 'tools/call',
          status: 'drift',
          reason: "it's <bad> & \uD800",
          durationMs: 1,
        },
      ],
      counts: { ok: 0, drift: 1, info: 0, skipped: 0 },
      drift: true,
    });
    expectWellFormed(xml);
    expect(xml).toContain('name="tools_call_a&lt;b&gt;&amp;&quot;c\uFFFD"');
    expect(xml).toContain('>it&apos;s &lt;bad&gt; &amp; \uFFFD</failure>');
  });

  it('exits 1 with one line naming an unreachable server, 2 on a usage error', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    const url = server.url;
    await server.close();
    const down = await runCli(['verify', '--cache', cacheDir, '--url', url]);
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toContain(url);

    const usage = await runCli(['verify', '--cache', cacheDir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
    expect(usage.stderr).toMatch(/--url/);
  });
});

describe('mcp-rewind export', () => {
  it('writes a single-file cassette that --cache FILE replays with the upstream gone', async () => {
    const server = await upstream();
    const { cacheDir, live } = await record(server);
    await server.close();
    const file = path.join(await tempDir(), 'cassette.json');
    const result = await runCli(['export', '--cache', cacheDir, '--out', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const exported = JSON.parse(await readFile(file, 'utf8')) as {
      format: string;
      version: number;
      exportedAt: string;
      entries: Array<{ n: number; key: string; entry: unknown }>;
    };
    expect(exported).toMatchObject({ format: 'mcp-rewind-cassette', version: 1 });
    expect(Number.isNaN(Date.parse(exported.exportedAt))).toBe(false);
    const files = await distilledFiles(cacheDir);
    expect(exported.entries.map((e) => `${e.n} ${e.key}.json`)).toEqual(files);
    expect(exported.entries[0].entry).toEqual(JSON.parse(await readFile(path.join(cacheDir, files[0]), 'utf8'))); // verbatim

    const replaying = await proxy({ mode: 'replay', cacheDir: file });
    expect(replaying.store?.size).toBe(files.length);
    expect(await session(await client(replaying.url))).toEqual(live);

    await expect(replaying.store?.add('ping', 'ping', { result: {} })).rejects.toThrow(
      'a single-file cassette is read-only: record into a folder',
    );
    const recordIntoFile = await runCli(['--url', 'http://127.0.0.1:9/mcp', '--cache', file]);
    expect(recordIntoFile.code).toBe(1);
    expect(recordIntoFile.stderr.trim().split('\n')).toHaveLength(1);
    expect(recordIntoFile.stderr).toMatch(/single-file cassette.*read-only/);
  });

  it('redacts authorization and cookie keys an entry may hold', async () => {
    const dir = await tempDir();
    const store = await CassetteStore.open(dir, { watch: false });
    await store.add('x/custom', 'x_custom_1', {
      method: 'x/custom',
      params: { headers: { Authorization: SECRET, accept: 'a' }, cookie: 'c=1' },
      result: {},
    });
    store.close();
    const text = JSON.stringify(await exportSingleFile(dir));
    expect(text).not.toContain('sk-verify-export');
    expect(text).not.toContain('c=1');
    expect(text).toContain('"accept":"a"');
  });

  it('writes HAR 1.2, one entry per recorded exchange, without secrets', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    const har = path.join(await tempDir(), 'cassette.har');
    const result = await runCli(['export', '--cache', cacheDir, '--har', har]);
    expect(result.code).toBe(0);
    const text = await readFile(har, 'utf8');
    expect(text).not.toContain('sk-verify-export');
    for (const sid of server.sessionIds()) expect(text).not.toContain(sid);
    const parsed = JSON.parse(text) as Har;
    expectHar(parsed);
    const files = await distilledFiles(cacheDir);
    expect(parsed.log.entries).toHaveLength(files.length);
    expect(parsed.log.entries.every((e) => !e._mcpRewind.synthetic)).toBe(true);
    const echo = parsed.log.entries.find((e) => e._mcpRewind.key === echoKey);
    expect(echo?.request.url).toBe(server.url);
    expect(JSON.parse(echo?.request.postData?.text ?? '{}')).toMatchObject({
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello' } },
    });
    expect(echo?.response.content.text).toContain('echo: hello');
    expect(echo?.request.headers.find((h) => h.name.toLowerCase() === 'authorization')?.value).toBe('[REDACTED]');
  });

  it('rebuilds requests from distilled entries without debug files, and reads mcp-rewind debug files', async () => {
    const server = await upstream();
    const { cacheDir } = await record(server);
    const single = path.join(await tempDir(), 'single.json');
    await writeFile(single, JSON.stringify(await exportSingleFile(cacheDir)));
    const fromFile = await exportHar(single);
    expectHar(fromFile);
    expect(fromFile.log.entries.every((e) => e._mcpRewind.synthetic)).toBe(true);
    const echo = fromFile.log.entries.find((e) => e._mcpRewind.key === echoKey);
    expect(JSON.parse(echo?.request.postData?.text ?? '{}')).toMatchObject({
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello' } },
    });

    const legacy = await exportHar(path.join(REPO, 'test/fixtures/mcp-rewind-cache'));
    expectHar(legacy);
    expect(legacy.log.entries.map((e) => e._mcpRewind.n)).toEqual([1, 2, 3, 4, 5, 6]); // 2 = notifications/initialized (debug files only)
    expect(legacy.log.entries[0].request.url).toBe('http://localhost:61234/mcp');
    expect(JSON.stringify(legacy)).not.toContain('0b6f4c1e-2f53-4c38-9a0e-8f2f6f7d1c11'); // mcp-session-id
  });
});

/** The HAR 1.2 fields (http://www.softwareishard.com/blog/har-12-spec/) every reader relies on. */
function expectHar(har: Har): void {
  expect(har.log.version).toBe('1.2');
  expect(har.log.creator).toEqual({ name: 'mcp-rewind', version: expect.any(String) });
  const isHeaders = (list: unknown): boolean =>
    Array.isArray(list) && list.every((h) => typeof h.name === 'string' && typeof h.value === 'string');
  for (const e of har.log.entries) {
    expect(Number.isNaN(Date.parse(e.startedDateTime))).toBe(false);
    expect(e.startedDateTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(typeof e.time).toBe('number');
    const { request: q, response: r } = e;
    expect(typeof q.method).toBe('string');
    expect(() => new URL(q.url)).not.toThrow();
    expect(q.httpVersion).toBe('HTTP/1.1');
    expect(isHeaders(q.headers) && isHeaders(q.queryString)).toBe(true);
    expect(q.cookies).toEqual([]);
    expect(typeof q.headersSize).toBe('number');
    expect(typeof q.bodySize).toBe('number');
    expect(q.postData).toEqual({ mimeType: expect.any(String), text: expect.any(String) });
    expect(typeof r.status).toBe('number');
    expect(typeof r.statusText).toBe('string');
    expect(r.httpVersion).toBe('HTTP/1.1');
    expect(isHeaders(r.headers)).toBe(true);
    expect(r.cookies).toEqual([]);
    expect(r.content).toEqual({ size: expect.any(Number), mimeType: expect.any(String), text: expect.any(String) });
    expect(r.redirectURL).toBe('');
    expect(typeof r.headersSize).toBe('number');
    expect(typeof r.bodySize).toBe('number');
    expect(e.cache).toEqual({});
    expect(e.timings).toEqual({ send: expect.any(Number), wait: expect.any(Number), receive: expect.any(Number) });
  }
}

/** A small XML well-formedness check (no XML parser among the dependencies): tags balance, no raw & or <. */
function expectWellFormed(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  const stack: string[] = [];
  const body = xml.replace(/^<\?xml[^>]*\?>/, '');
  for (const m of body.matchAll(/<(\/?)([A-Za-z-]+)((?:\s+[A-Za-z-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/g)) {
    if (m[5] !== undefined) {
      expect(m[5]).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
      continue;
    }
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]);
  }
  expect(stack).toEqual([]);
  expect(body.replace(/<(\/?)([A-Za-z-]+)((?:\s+[A-Za-z-]+="[^"<]*")*)\s*(\/?)>|[^<]+/g, '')).toBe('');
}
