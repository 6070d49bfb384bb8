import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { agent, cleanup, instance, keep, rawMcpPost, textOf } from './harness.js';

// The token-gated MCP endpoint: Bearer, X-MiMCP-Session or /s/<token>/mcp; 401 otherwise; tokens stay here.
afterEach(cleanup);

const tool = (name: string, text = name) => ({
  name,
  input_schema: { type: 'object' },
  behavior: { type: 'override', response: { text } },
});
const UNKNOWN = 'calm-heron-0000';

function customUpstream(): Promise<CustomUpstream> {
  return startCustomUpstream(() => {
    const server = new McpServer({ name: 'header-spy', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `spy: ${text}` }],
    }));
    return server.server;
  }).then(keep);
}

describe('serve: the MCP token gate', () => {
  it('answers 401 with a JSON-RPC error (id null) for a missing or unknown token, in every form', async () => {
    const { serve, api } = await instance();
    const s = await api.create({ tools: [tool('one')] });
    const denied: Array<[string, string, Record<string, string>]> = [
      ['no token', `${serve.url}/mcp`, {}],
      ['unknown bearer', `${serve.url}/mcp`, { authorization: `Bearer ${UNKNOWN}` }],
      ['the token without the Bearer scheme', `${serve.url}/mcp`, { authorization: s.mcp.token }],
      // the readable session id is a name, never a credential
      ['the session id as a bearer', `${serve.url}/mcp`, { authorization: `Bearer ${s.session_id}` }],
      ['the session id as X-MiMCP-Session', `${serve.url}/mcp`, { 'x-mimcp-session': s.session_id }],
      ['the session id in the path', `${serve.url}/s/${s.session_id}/mcp`, {}],
      ['unknown X-MiMCP-Session', `${serve.url}/mcp`, { 'x-mimcp-session': UNKNOWN }],
      ['unknown token in the path', `${serve.url}/s/${UNKNOWN}/mcp`, {}],
      ['empty token in the path', `${serve.url}/s//mcp`, {}],
    ];
    for (const [what, url, headers] of denied) {
      const answer = await rawMcpPost(url, headers);
      expect(answer.status, what).toBe(401);
      expect(answer.body, what).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: expect.any(Number), message: expect.any(String) },
      });
    }
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${serve.url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'whatever' },
      });
      expect(res.status, method).toBe(401);
      await res.body?.cancel();
    }
    for (const [what, url, headers] of [
      ['bearer', s.mcp.url, s.mcp.headers],
      ['X-MiMCP-Session', s.mcp.url, { 'X-MiMCP-Session': s.mcp.token }],
      ['path', s.mcp.path_url, {}],
    ] as const) {
      expect((await rawMcpPost(url, headers)).status, what).toBe(200);
    }
  });

  it('routes each agent to the session its token names, whichever way it is presented', async () => {
    const { api } = await instance();
    const s1 = await api.create({ tools: [tool('one')] });
    const s2 = await api.create({ tools: [tool('two')] });
    const viaBearer = await agent(s1, 'bearer');
    const viaHeader = await agent(s2, 'x-header');
    const viaPath = await agent(s1, 'path');
    expect((await viaBearer.client.listTools()).tools.map((t) => t.name)).toEqual(['one']);
    expect((await viaHeader.client.listTools()).tools.map((t) => t.name)).toEqual(['two']);
    expect((await viaPath.client.listTools()).tools.map((t) => t.name)).toEqual(['one']);
    expect(textOf(await viaPath.client.callTool({ name: 'one', arguments: { via: 'path' } }))).toBe('one');
    expect(textOf(await viaHeader.client.callTool({ name: 'two', arguments: { via: 'header' } }))).toBe('two');
    expect((await api.calls(s1.session_id)).map((c) => c.arguments)).toEqual([{ via: 'path' }]);
    expect((await api.calls(s2.session_id)).map((c) => c.arguments)).toEqual([{ via: 'header' }]);
    expect((await api.detail(s1.session_id)).agents).toBe(2);
    expect((await api.detail(s2.session_id)).agents).toBe(1);

    // an MCP session id of s1 presented with s2's token does not reach s1 (routing is by token only)
    const hijack = await rawMcpPost(
      s2.mcp.url,
      { ...s2.mcp.headers, 'mcp-session-id': viaBearer.sessionId() ?? 'none', 'mcp-protocol-version': '2025-06-18' },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'one', arguments: { via: 'hijack' } },
      },
    );
    expect(hijack.text).not.toContain('"text":"one"'); // s1's tool did not answer
    expect((await api.calls(s1.session_id)).map((c) => c.arguments)).toEqual([{ via: 'path' }]);
    expect(textOf(await viaBearer.client.callTool({ name: 'one', arguments: { via: 'bearer' } }))).toBe('one');
    expect((await api.calls(s1.session_id)).map((c) => c.arguments)).toEqual([{ via: 'path' }, { via: 'bearer' }]);
  });

  it('locks out a deleted session: its connected agent fails, new agents get 401', async () => {
    const { api } = await instance();
    const s = await api.create({ tools: [tool('one')] });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'one', arguments: {} }))).toBe('one');
    await api.remove(s.session_id);
    await expect(c.client.callTool({ name: 'one', arguments: {} })).rejects.toThrow();
    expect((await rawMcpPost(s.mcp.url, s.mcp.headers)).status).toBe(401);
    expect((await rawMcpPost(s.mcp.url, { 'X-MiMCP-Session': s.mcp.token })).status).toBe(401);
    expect((await rawMcpPost(s.mcp.path_url)).status).toBe(401);
    await expect(agent(s, 'path')).rejects.toThrow();
  });
});

describe('serve: what reaches the upstream', () => {
  it('sends the session upstream.headers on every request and never the session token', async () => {
    const up = await customUpstream();
    const { api } = await instance();
    const s = await api.create({
      upstream: { url: up.url, headers: { Authorization: 'Bearer upstream-secret', 'X-Upstream-Key': 'k1' } },
    });
    for (const via of ['bearer', 'x-header', 'path'] as const) {
      const c = await agent(s, via);
      expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: via } }))).toBe(`spy: ${via}`);
      await c.close();
    }
    expect(up.requests.length).toBeGreaterThan(0);
    for (const req of up.requests) {
      const where = `${req.method} ${req.url}`;
      expect(req.headers.authorization, where).toBe('Bearer upstream-secret');
      expect(req.headers['x-upstream-key'], where).toBe('k1');
      expect(req.headers['x-mimcp-session'], where).toBeUndefined();
      expect(JSON.stringify(req.headers), where).not.toContain(s.mcp.token);
      expect(req.url, where).not.toContain(s.mcp.token);
    }
  });

  it('sends no Authorization upstream when the session gives none', async () => {
    const up = await customUpstream();
    const { api } = await instance();
    const s = await api.create({ upstream: { url: up.url } });
    const c = await agent(s);
    await c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(up.requests.length).toBeGreaterThan(0);
    for (const req of up.requests) {
      expect(req.headers.authorization, `${req.method} ${req.url}`).toBeUndefined();
      expect(JSON.stringify(req.headers)).not.toContain(s.mcp.token);
    }
  });

  it('DELETE /api/sessions/{sid} closes that session’s upstream sessions and leaves the others alone', async () => {
    const up = keep(await startSdkServer());
    const { api } = await instance();
    const s1 = await api.create({ upstream: { url: up.url } });
    const c1 = await agent(s1);
    expect(textOf(await c1.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('echo: a');
    const ofS1 = up.sessionIds();
    expect(ofS1.length).toBeGreaterThan(0);

    const s2 = await api.create({ upstream: { url: up.url } });
    const c2 = await agent(s2);
    expect(textOf(await c2.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('echo: b');

    await api.remove(s1.session_id);
    await expect.poll(() => up.sessionIds().filter((id) => ofS1.includes(id)), { timeout: 5000 }).toEqual([]);
    expect(textOf(await c2.client.callTool({ name: 'echo', arguments: { text: 'c' } }))).toBe('echo: c');
    expect(up.sessionIds().length).toBeGreaterThan(0);
  });
});
