import { afterEach, describe, expect, it } from 'vitest';
import { agent, cleanup, instance, Rest, type CreatedSession, type ErrorBody, type SessionDetail } from './harness.js';

// The REST API on its own: shapes, lifecycle, 404s, the API token, the recording cap.
afterEach(cleanup);

const SID = /^[a-z]+-[a-z]+-[0-9a-f]{4}$/;
const SYNTH = {
  name: 'ping',
  input_schema: { type: 'object' },
  behavior: { type: 'override', response: { text: 'pong' } },
};

describe('serve REST: sessions', () => {
  it('GET /api/healthz answers ok', async () => {
    const { api } = await instance();
    const answer = await api.request('GET', '/api/healthz');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  it('POST /api/sessions answers 201 with a human-readable id, a 256-bit agent token shown this once, and exactly what to give the agent', async () => {
    const { serve, api } = await instance();
    expect(serve.url).toBe(`http://127.0.0.1:${serve.port}`);
    const answer = await api.request('POST', '/api/sessions', { name: 'agent-under-test', tools: [SYNTH] });
    expect(answer.status).toBe(201);
    const created = answer.body as unknown as CreatedSession;
    expect(created.session_id).toMatch(SID);
    expect(created).toMatchObject({
      session_id: created.session_id,
      name: 'agent-under-test',
      status: 'pending',
      upstream: null,
      mcp: {
        url: `${serve.url}/mcp`,
        headers: { Authorization: `Bearer ${created.mcp.token}` },
        path_url: `${serve.url}/s/${created.mcp.token}/mcp`,
      },
    });
    expect(Buffer.from(created.mcp.token, 'base64url')).toHaveLength(32);
    expect(created.mcp.token).not.toContain(created.session_id);
    expect(typeof created.mode).toBe('string');
    expect(created.tools).toEqual([
      expect.objectContaining({
        name: 'ping',
        input_schema: { type: 'object' },
        behavior: { type: 'override', response: { text: 'pong' } },
        origin: 'synthetic',
      }),
    ]);
  });

  it('gives every session its own id and token', async () => {
    const { api } = await instance();
    const ids = new Set<string>();
    const tokens = new Set<string>();
    for (let i = 0; i < 25; i++) {
      const s = await api.create({ tools: [SYNTH] });
      ids.add(s.session_id);
      tokens.add(s.mcp.token);
    }
    expect(ids.size).toBe(25);
    expect(tokens.size).toBe(25);
    for (const id of ids) expect(id).toMatch(SID);
  });

  it('lists sessions, pending until an agent initializes, then connected, with their call counts', async () => {
    const { api } = await instance();
    const one = await api.create({ name: 'one', tools: [SYNTH] });
    const two = await api.create({ name: 'two', tools: [SYNTH] });
    const before = (await api.list()).sessions;
    expect(before.map((s) => s.session_id).sort()).toEqual([one.session_id, two.session_id].sort());
    for (const s of before) {
      expect(s).toMatchObject({ status: 'pending', upstream: null, calls: 0 });
      expect(Number.isNaN(Date.parse(s.created_at))).toBe(false);
    }

    const c = await agent(one);
    await c.client.callTool({ name: 'ping', arguments: {} });
    const after = (await api.list()).sessions;
    expect(after.find((s) => s.session_id === one.session_id)).toMatchObject({
      name: 'one',
      status: 'connected',
      calls: 1,
    });
    expect(after.find((s) => s.session_id === two.session_id)).toMatchObject({
      name: 'two',
      status: 'pending',
      calls: 0,
    });
  });

  it('GET /api/sessions/{sid} gives the full detail, with the upstream headers redacted', async () => {
    const { api } = await instance();
    const created = await api.create({
      name: 'detailed',
      instructions: 'Be nice.',
      passthrough: false,
      // nothing listens there: the detail must still answer
      upstream: {
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer upstream-secret-123', 'X-Api-Key': 'key-secret-456' },
      },
      tools: [{ name: 'search', description: 'patched' }],
    });
    expect(JSON.stringify(created)).not.toMatch(/secret-123|secret-456/);
    const detail = await api.detail(created.session_id);
    expect(detail).toMatchObject({
      session_id: created.session_id,
      name: 'detailed',
      status: 'pending',
      mode: created.mode,
      instructions: 'Be nice.',
      passthrough: false,
      overlay: [{ name: 'search', description: 'patched' }],
      // the agent's token was shown once, at creation: masked from then on
      mcp: {
        url: created.mcp.url,
        headers: { Authorization: 'Bearer [REDACTED]' },
        path_url: created.mcp.path_url.replace(created.mcp.token, '[REDACTED]'),
      },
      agents: 0,
      calls: 0,
      upstream: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '[REDACTED]', 'X-Api-Key': '[REDACTED]' } },
    });
    expect(['connecting', 'connected', 'disconnected']).toContain(detail.upstream?.state);
    expect(Number.isNaN(Date.parse(detail.created_at))).toBe(false);
    expect(JSON.stringify(detail)).not.toMatch(/secret-123|secret-456/);
    expect(JSON.stringify(await api.list())).not.toMatch(/secret-123|secret-456/);
    expect(JSON.stringify(detail)).not.toContain(created.mcp.token);
    expect(JSON.stringify(await api.list())).not.toContain(created.mcp.token);
  });

  it('counts the agents connected to a session', async () => {
    const { api } = await instance();
    const s = await api.create({ tools: [SYNTH] });
    const first = await agent(s);
    await agent(s, 'x-header');
    expect((await api.detail(s.session_id)).agents).toBe(2);
    await first.close(); // DELETE ends that MCP session
    await expect.poll(async () => (await api.detail(s.session_id)).agents, { timeout: 5000 }).toBe(1);
  });

  it('DELETE drops the session: 204, then 404 everywhere and 401 for its token', async () => {
    const { api } = await instance();
    const s = await api.create({ tools: [SYNTH] });
    const keepMe = await api.create({ tools: [SYNTH] });
    const del = await api.request('DELETE', `/api/sessions/${s.session_id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    for (const path of [
      `/api/sessions/${s.session_id}`,
      `/api/sessions/${s.session_id}/tools`,
      `/api/sessions/${s.session_id}/calls`,
    ]) {
      expect((await api.request('GET', path)).status, path).toBe(404);
    }
    expect((await api.request('DELETE', `/api/sessions/${s.session_id}`)).status).toBe(404);
    expect((await api.list()).sessions.map((x) => x.session_id)).toEqual([keepMe.session_id]);
    await expect(agent(s)).rejects.toThrow();
  });

  it('answers 404 with a JSON error for unknown sessions', async () => {
    const { api } = await instance();
    const unknown = 'calm-heron-0000';
    const answers = [
      await api.request<ErrorBody>('GET', `/api/sessions/${unknown}`),
      await api.request<ErrorBody>('GET', `/api/sessions/${unknown}/tools`),
      await api.request<ErrorBody>('PUT', `/api/sessions/${unknown}/tools`, { tools: [] }),
      await api.request<ErrorBody>('GET', `/api/sessions/${unknown}/calls`),
      await api.request<ErrorBody>('DELETE', `/api/sessions/${unknown}`),
    ];
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });
});

describe('serve REST: the API token', () => {
  it('guards every /api/* route except healthz; the MCP endpoint keeps using the session token', async () => {
    const { serve, api } = await instance({ apiToken: 'api-s3cret' });
    const anonymous = new Rest(serve.url);

    const health = await anonymous.request('GET', '/api/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    expect((await anonymous.request('GET', '/api/sessions')).status).toBe(401);
    expect((await anonymous.request('POST', '/api/sessions', { tools: [SYNTH] })).status).toBe(401);
    expect((await anonymous.request('GET', '/api/sessions', undefined, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    expect((await anonymous.request('GET', '/api/sessions', undefined, { authorization: 'api-s3cret' })).status).toBe(
      401,
    );
    expect((await api.list()).sessions).toEqual([]); // nothing was created by the rejected POST

    const s = await api.create({ tools: [SYNTH] });
    for (const [method, path] of [
      ['GET', `/api/sessions/${s.session_id}`],
      ['GET', `/api/sessions/${s.session_id}/tools`],
      ['PUT', `/api/sessions/${s.session_id}/tools`],
      ['GET', `/api/sessions/${s.session_id}/calls`],
      ['DELETE', `/api/sessions/${s.session_id}`],
    ] as const) {
      const answer = await anonymous.request(method, path, method === 'PUT' ? { tools: [] } : undefined);
      expect(answer.status, `${method} ${path}`).toBe(401);
      // the session token is not an API token either
      expect(
        (
          await anonymous.request(method, path, method === 'PUT' ? { tools: [] } : undefined, {
            authorization: `Bearer ${s.mcp.token}`,
          })
        ).status,
        `${method} ${path} with the session token`,
      ).toBe(401);
    }
    const detail: SessionDetail = await api.detail(s.session_id);
    expect(detail.overlay).toEqual([SYNTH]); // the rejected PUTs changed nothing

    // the MCP endpoint needs the session token, not the API token
    const c = await agent(s);
    expect(await c.client.callTool({ name: 'ping', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'pong' }],
    });
  });
});

describe('serve REST: recorded calls', () => {
  it('records tool, arguments, behavior, response, is_error, duration and time, oldest first', async () => {
    const { api } = await instance();
    const s = await api.create({
      tools: [
        SYNTH,
        {
          name: 'bad',
          input_schema: { type: 'object' },
          behavior: { type: 'override', response: { text: 'nope', is_error: true } },
        },
      ],
    });
    const c = await agent(s);
    const started = Date.now();
    await c.client.callTool({ name: 'ping', arguments: { n: 1, nested: { a: [1, 'x'] } } });
    await c.client.callTool({ name: 'bad', arguments: {} });
    const calls = await api.calls(s.session_id);
    expect(calls).toEqual([
      expect.objectContaining({
        tool: 'ping',
        arguments: { n: 1, nested: { a: [1, 'x'] } },
        behavior: 'override',
        is_error: false,
        response: expect.objectContaining({ content: [{ type: 'text', text: 'pong' }] }),
      }),
      expect.objectContaining({
        tool: 'bad',
        arguments: {},
        behavior: 'override',
        is_error: true,
        response: expect.objectContaining({ isError: true, content: [{ type: 'text', text: 'nope' }] }),
      }),
    ]);
    for (const call of calls) {
      expect(call.duration_ms).toBeGreaterThanOrEqual(0);
      expect(call.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
      expect(Date.parse(call.at)).toBeGreaterThanOrEqual(started - 1000);
    }
    expect((await api.detail(s.session_id)).calls).toBe(2);
  });

  it('keeps only the last maxRecordedCalls calls', async () => {
    const { api } = await instance({ maxRecordedCalls: 3 });
    const s = await api.create({ tools: [SYNTH] });
    const c = await agent(s);
    for (let i = 0; i < 5; i++) await c.client.callTool({ name: 'ping', arguments: { i } });
    const calls = await api.calls(s.session_id);
    expect(calls.map((x) => x.arguments)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
  });
});
