import { afterEach, describe, expect, it } from 'vitest';
import { everythingEntry, startEverything } from '../fixtures/everything.js';
import { agent, cleanup, instance, keep, textOf } from './harness.js';

// `serve` opens a session's upstream as the CLI does (openUpstream): legacy HTTP+SSE detected and bridged, and a
// stdio server given as a command — here server-everything, a third-party server, over both.
afterEach(cleanup);

describe('serve: upstreams that do not speak Streamable HTTP', () => {
  it('a legacy HTTP+SSE server is detected and bridged; rules apply and the supervisor sees its tools', async () => {
    const ev = keep(await startEverything('sse'));
    const { api } = await instance();
    const s = await api.create({
      upstream: { url: ev.url },
      tools: [{ name: 'echo', behavior: { type: 'inject', template: '[{original_text}]' } }],
    });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { message: 'via sse' } }))).toBe(
      '[Echo: via sse]',
    );
    expect(textOf(await c.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }))).toBe(
      'The sum of 1 and 2 is 3.',
    );
    await expect
      .poll(async () => (await api.detail(s.session_id)).upstream?.state, { timeout: 10_000 })
      .toBe('connected');
    expect((await api.tools(s.session_id)).tools.map((t) => t.name)).toContain('get-sum');
  });

  it('a stdio server given as a command answers the agent, and the session names its command', async () => {
    const { api } = await instance();
    const command = [process.execPath, everythingEntry(), 'stdio'].map((w) => `"${w}"`).join(' ');
    const s = await api.create({ upstream: { command }, passthrough: true, tools: [] });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { message: 'via stdio' } }))).toBe(
      'Echo: via stdio',
    );
    const detail = await api.detail(s.session_id);
    expect(detail.upstream).toMatchObject({ command });
  });

  it('refuses url and command together, naming the field', async () => {
    const { api } = await instance();
    const answer = await api.request<{ message: string }>('POST', '/api/sessions', {
      upstream: { url: 'http://127.0.0.1:1/mcp', command: 'node x.js' },
      tools: [],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('upstream');
  });
});
