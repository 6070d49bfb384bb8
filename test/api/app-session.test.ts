import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_APP_SESSION } from '../../src/shared/app-session.js';
import { startInspectServer, type Inspected } from '../fixtures/inspect-server.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, failure, keep } from './harness.js';

// Request-level control of what the app sends (issue 25 item 12): extra HTTP headers and `_meta` on one request, the
// capabilities and roots the app's session declares — each seen by a real SDK server behind a real recording proxy.

afterEach(cleanup);

async function setup() {
  const t = await app();
  const server = keep(await startInspectServer());
  const proxy = await call(t.api, 'proxies.create', {
    name: 'rec',
    mode: 'record',
    upstreamUrl: server.url,
    cacheDir: await tempDir(),
  });
  const inspect = async (extra: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {}) => {
    const sent = await call(t.api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'inspect', arguments: {}, ...(extra.meta ? { _meta: extra.meta } : {}) },
      kind: 'compose',
      ...(extra.headers ? { headers: extra.headers } : {}),
    });
    const result = (sent.response as unknown as { result: { content: Array<{ text: string }> } }).result;
    return JSON.parse(result.content[0].text) as Inspected;
  };
  return { ...t, proxy, inspect };
}

describe('api: what the app session sends and declares', () => {
  it('sends extra headers and _meta on one request only; refuses a header the transport sets', async () => {
    const { api, proxy, inspect } = await setup();
    const seen = await inspect({
      headers: { Authorization: 'Bearer test-token-1', 'X-Trace': 'trace-42' },
      meta: { 'example.com/run': 7 },
    });
    expect(seen).toMatchObject({
      authorization: 'Bearer test-token-1',
      trace: 'trace-42',
      meta: { 'example.com/run': 7 },
    });
    // the next request on the same session has none of them
    const next = await inspect();
    expect(next.authorization).toBeUndefined();
    expect(next.trace).toBeUndefined();
    expect(next.meta).toBeUndefined();
    const refused = await failure(
      api.call('exchange.send', {
        proxyId: proxy.id,
        method: 'tools/call',
        params: { name: 'inspect' },
        kind: 'compose',
        headers: { 'Mcp-Session-Id': 'hijack' },
      }),
    );
    expect(refused).toMatch(/headers.*the transport sets this header itself/);
  });

  it('declares sampling, elicitation and roots by default; what the user chooses from the next call on', async () => {
    const { api, inspect } = await setup();
    expect(await call(api, 'appSession.get', {})).toEqual(DEFAULT_APP_SESSION);
    const before = await inspect();
    expect(Object.keys(before.capabilities).sort()).toEqual(['elicitation', 'roots', 'sampling']);
    expect(before.roots).toEqual([]);

    const chosen = {
      capabilities: { sampling: false, elicitation: false, roots: true },
      roots: [{ uri: 'file:///work/project', name: 'project' }],
    };
    expect(await call(api, 'appSession.set', chosen)).toEqual(chosen);
    const after = await inspect();
    expect(Object.keys(after.capabilities)).toEqual(['roots']);
    expect(after.roots).toEqual([{ uri: 'file:///work/project', name: 'project' }]);

    await call(api, 'appSession.set', {
      capabilities: { sampling: false, elicitation: false, roots: false },
      roots: [],
    });
    expect((await inspect()).capabilities).toEqual({});
    expect(await failure(api.call('appSession.set', { ...chosen, roots: [{ uri: 'https://x' }] }))).toMatch(
      /file:\/\/ URI/,
    );
  });
});
