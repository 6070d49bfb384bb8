/**
 * Robustness against hostile content: tool names that try to leave the cassette folder or break file names, and
 * secrets (headers, URL credentials) that must never reach the disk.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { isDistilled, listTree, tempDir, textOf, removeRobustTempDirs } from './robustness-helpers.js';

afterAll(removeRobustTempDirs);

// ---------------------------------------------------------------------------------------------------------------
// hostile tool names

const HOSTILE_NAMES = [
  '../escape',
  'a/b',
  'nul\u0000byte',
  'x'.repeat(600),
  'CON',
  'ünï/cødé',
  '..',
  'back\\slash',
  '.',
  'ctl\u0001\u001f\u007fchars',
  'colon:star*?"<>|',
  '%2F..%2F',
  'y'.repeat(10_240),
  'echo',
  'еcho' /* Cyrillic е: a look-alike of the previous */,
  'ＣＯＮ',
  'aux.txt',
];

function hostileServer(): Server {
  const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: HOSTILE_NAMES.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [
      {
        type: 'text',
        text: `called ${JSON.stringify(request.params.name)} with ${JSON.stringify(request.params.arguments ?? {})}`,
      },
    ],
  }));
  return server;
}

describe('hostile tool names', () => {
  let upstream: CustomUpstream | undefined;
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await upstream?.close();
    client = undefined;
    proxy = undefined;
    upstream = undefined;
  });

  it('are recorded into files directly inside the cassette folder with safe names, and replay', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'cassette');
    upstream = await startCustomUpstream(hostileServer);
    proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
    client = await connectClient(proxy.url);
    const recorded = new Map<string, CallToolResult>();
    for (const name of HOSTILE_NAMES) {
      const result = (await client.client.callTool({ name, arguments: { n: name.length } })) as CallToolResult;
      expect(textOf(result)).toBe(`called ${JSON.stringify(name)} with {"n":${name.length}}`);
      recorded.set(name, result);
    }
    await proxy.flush();
    await client.close();
    client = undefined;
    await proxy.close();
    proxy = undefined;

    const tree = await listTree(root);
    // the cassette folder itself plus files; nothing else anywhere under the temp root
    expect(tree.filter((p) => p.endsWith(path.sep))).toEqual([dir + path.sep]);
    const files = tree.filter((p) => !p.endsWith(path.sep));
    expect(files.length).toBeGreaterThanOrEqual(HOSTILE_NAMES.length);
    for (const file of files) {
      expect(path.dirname(file)).toBe(dir);
      const name = path.basename(file);
      expect(Buffer.byteLength(name), name).toBeLessThanOrEqual(255);
      // eslint-disable-next-line no-control-regex -- control characters are what the file names must not hold
      expect(name, JSON.stringify(name)).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
      expect(name).not.toMatch(/^\.\.?$/);
      expect(name.startsWith('.rewind-tmp-'), name).toBe(false);
    }
    const distilled = files.map((f) => path.basename(f)).filter(isDistilled);
    expect(distilled.filter((n) => n.includes('tools_call_'))).toHaveLength(HOSTILE_NAMES.length);

    await upstream.close();
    upstream = undefined;
    proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    client = await connectClient(proxy.url);
    const misses: string[] = [];
    proxy.events.on('exchange', (e) => {
      if (e.cassette === 'miss') misses.push(e.key);
    });
    for (const name of HOSTILE_NAMES) {
      const replayed = await client.client.callTool({ name, arguments: { n: name.length } });
      expect(replayed, JSON.stringify(name)).toEqual(recorded.get(name));
    }
    expect(misses).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// secrets

describe('secrets never reach the cassette', () => {
  let upstream: CustomUpstream | undefined;
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await upstream?.close();
    client = undefined;
    proxy = undefined;
    upstream = undefined;
  });

  it('Authorization, Cookie and X-Api-Key are forwarded upstream but written as [REDACTED]', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'secrets', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, (request) => ({
        content: [{ type: 'text', text: `echo ${JSON.stringify(request.params.arguments)}` }],
      }));
      return server;
    });
    proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
    client = await connectClient(proxy.url, {
      headers: {
        Authorization: 'Bearer sk-secret-123',
        Cookie: 'sid=cookie-secret-456',
        'X-Api-Key': 'key-secret-789',
      },
    });
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { a: 1 } }))).toBe('echo {"a":1}');
    expect(await client.client.listTools()).toMatchObject({ tools: [{ name: 'echo' }] });
    await proxy.flush();

    // the upstream received the credentials on every POST (the proxy forwards them)
    const posts = upstream.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/call, tools/list
    for (const r of posts) {
      expect(r.headers.authorization).toBe('Bearer sk-secret-123');
      expect(r.headers.cookie).toBe('sid=cookie-secret-456');
      expect(r.headers['x-api-key']).toBe('key-secret-789');
    }

    const names = await readdir(dir);
    expect(names.filter(isDistilled).length).toBeGreaterThanOrEqual(3); // initialize, tools_call_echo_…, tools_list
    for (const name of names) {
      const content = await readFile(path.join(dir, name), 'utf8');
      for (const secret of ['sk-secret-123', 'cookie-secret-456', 'key-secret-789'])
        expect(content, `${name} contains ${secret}`).not.toContain(secret);
    }
    const reqFiles = names.filter((n) => n.endsWith('.req.json'));
    expect(reqFiles.length).toBeGreaterThanOrEqual(3);
    for (const name of reqFiles) {
      const debug = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as { headers: Record<string, unknown> };
      expect(debug.headers.authorization, name).toBe('[REDACTED]');
      expect(debug.headers.cookie, name).toBe('[REDACTED]');
      expect(debug.headers['x-api-key'], name).toBe('[REDACTED]');
    }
  });

  it('credentials in the upstream URL (user:password@, ?api_key=) are not written to the cassette either', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'secrets', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    });
    const url = new URL(upstream.url);
    url.username = 'user';
    url.password = 'pass-secret-111';
    url.searchParams.set('api_key', 'query-secret-000');
    proxy = await startProxy({ mode: 'record', upstreamUrl: url.href, cacheDir: dir });
    client = await connectClient(proxy.url);
    expect(textOf(await client.client.callTool({ name: 'anything', arguments: {} }))).toBe('ok');
    await proxy.flush();

    // the URL is used as given: the upstream got the query and HTTP Basic credentials from it
    const post = upstream.requests.find((r) => r.method === 'POST');
    expect(post?.url).toBe('/mcp?api_key=query-secret-000');
    expect(post?.headers.authorization).toBe(`Basic ${Buffer.from('user:pass-secret-111').toString('base64')}`);

    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.req.json')).length).toBeGreaterThanOrEqual(2);
    for (const name of names) {
      const content = await readFile(path.join(dir, name), 'utf8');
      for (const secret of ['pass-secret-111', 'query-secret-000'])
        expect(content, `${name} contains ${secret}`).not.toContain(secret);
    }
  });

  it('the "upstream unavailable" error names the upstream without its credentials', async () => {
    upstream = await startCustomUpstream(
      () => new Server({ name: 'x', version: '1.0.0' }, { capabilities: { tools: {} } }),
    );
    const url = new URL(upstream.url);
    url.username = 'user';
    url.password = 'pass-secret-111';
    url.searchParams.set('api_key', 'query-secret-000');
    proxy = await startProxy({
      mode: 'record',
      upstreamUrl: url.href,
      cacheDir: path.join(await tempDir(), 'cassette'),
    });
    client = await connectClient(proxy.url);
    await upstream.close();
    const error = (await client.client.ping({ timeout: 15_000 }).then(
      () => undefined,
      (e: unknown) => e,
    )) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32005);
    expect(error.message).toContain(`127.0.0.1:${upstream.port}`);
    expect(error.message).not.toContain('pass-secret-111');
    expect(error.message).not.toContain('query-secret-000');
  });
});
