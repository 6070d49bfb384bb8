import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, CommandOutput } from '../../src/shared/api.js';
import type { ApiHandlers } from '../../src/main/api/handlers.js';
import type { ConnectedClient } from '../fixtures/client.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, textOf, upstream } from './harness.js';

afterEach(cleanup);

const LIST_CHANGED = 'notifications/tools/list_changed';
const listChanged = (c: ConnectedClient): number => c.notifications.filter((n) => n.method === LIST_CHANGED).length;
const FIXTURE_TOOLS = ['add', 'counter', 'echo', 'elicit', 'fail', 'progress', 'sample'];

/** rules.set until `clients` are notified: a client opens its server stream (GET) shortly after connecting. */
async function setUntilNotified(
  api: ApiHandlers,
  input: CommandInput<'rules.set'>,
  clients = 1,
): Promise<CommandOutput<'rules.set'>> {
  for (let i = 0; i < 100; i++) {
    const out = await call(api, 'rules.set', input);
    if (out.notified >= clients) return out;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`rules.set never reached ${clients} client(s)`);
}

describe('api: live rules', () => {
  it('shows the merged tool list, applies an override live and tells the connected client', async () => {
    const { api } = await app();
    const server = await upstream();
    const info = await call(api, 'proxies.create', {
      mode: 'record',
      upstreamUrl: server.url,
      cacheDir: await tempDir(),
    });

    // no client has listed the tools yet: the proxy asks the upstream itself
    const before = await call(api, 'rules.get', { id: info.id });
    expect(before.rules).toBeNull();
    expect(before.tools.map((t) => t.name).sort()).toEqual(FIXTURE_TOOLS);
    expect(before.tools.find((t) => t.name === 'echo')).toEqual({
      name: 'echo',
      description: 'Echo the text back with a prefix',
      behavior: 'relay',
      origin: 'upstream',
      // the input schema too: the breakpoint editor checks held arguments against it
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      }),
    });

    const c = await client(info.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('echo: x');

    const rules = {
      tools: [
        {
          name: 'echo',
          description: 'patched echo',
          behavior: { type: 'override' as const, response: { text: 'overridden!' } },
        },
      ],
    };
    const set = await setUntilNotified(api, { id: info.id, rules });
    expect(set.notified).toBe(1);
    expect(set.rules).toEqual({ ...rules, passthrough: true }); // defaults filled in by the schema
    expect(set.tools.find((t) => t.name === 'echo')).toEqual({
      name: 'echo',
      description: 'patched echo',
      behavior: 'override',
      origin: 'overlay',
      inputSchema: expect.objectContaining({ required: ['text'] }),
    });

    await expect.poll(() => listChanged(c), { timeout: 5000 }).toBeGreaterThan(0);
    expect((await c.client.listTools()).tools.find((t) => t.name === 'echo')?.description).toBe('patched echo');
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('overridden!');
    const calls = (await call(api, 'traffic.snapshot', {})).filter((e) => e.method === 'tools/call');
    expect(calls.at(-1)).toMatchObject({ proxyId: info.id, tool: 'echo', behavior: 'override' });
    expect((await call(api, 'rules.get', { id: info.id })).rules).toEqual(set.rules);
    expect((await call(api, 'proxies.list', {}))[0].config.rules).toEqual(set.rules);
  });

  it('hides unlisted tools, adds synthetic ones and injects into live results', async () => {
    const { api } = await app();
    const server = await upstream();
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const c = await client(info.url as string);
    const rules = {
      passthrough: false,
      tools: [
        { name: 'echo', behavior: { type: 'inject' as const, template: '[{original_text}] for {args.text}' } },
        {
          name: 'made-up',
          input_schema: { type: 'object' as const },
          behavior: { type: 'override' as const, response: { text: 'synthetic' } },
        },
      ],
    };
    const set = await setUntilNotified(api, { id: info.id, rules });
    expect(set.tools.map((t) => [t.name, t.behavior, t.origin])).toEqual([
      ['echo', 'inject', 'overlay'],
      ['made-up', 'override', 'synthetic'],
    ]);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'made-up']);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'q' } }))).toBe('[echo: q] for q');
    expect(textOf(await c.client.callTool({ name: 'made-up', arguments: {} }))).toBe('synthetic');
    await expect(c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/Unknown tool: add/);
  });

  it('keeps rules set on a stopped proxy for its next start', async () => {
    const { api } = await app();
    const server = await upstream();
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    await call(api, 'proxies.stop', { id: info.id });
    const rules = {
      tools: [{ name: 'echo', behavior: { type: 'override' as const, response: { text: 'after restart' } } }],
    };
    const set = await call(api, 'rules.set', { id: info.id, rules });
    expect(set).toMatchObject({ notified: 0, tools: [] });
    expect((await call(api, 'rules.get', { id: info.id })).rules).toEqual({ ...rules, passthrough: true });

    const started = await call(api, 'proxies.start', { id: info.id });
    const c = await client(started.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('after restart');
  });

  it('starts with the rules of its config', async () => {
    const { api } = await app();
    const server = await upstream();
    const info = await call(api, 'proxies.create', {
      mode: 'proxy-only',
      upstreamUrl: server.url,
      rules: {
        instructions: 'be brief',
        tools: [{ name: 'echo', behavior: { type: 'override', response: { text: 'from config' } } }],
      },
    });
    const c = await client(info.url as string);
    expect(c.client.getInstructions()).toBe('be brief');
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('from config');
    expect((await call(api, 'rules.get', { id: info.id })).tools.find((t) => t.name === 'echo')?.behavior).toBe(
      'override',
    );
  });

  it('previews an inject template against a result', async () => {
    const { api } = await app();
    const result = { content: [{ type: 'text', text: 'sunny' }] };
    expect(
      await call(api, 'rules.preview', {
        template: 'Weather: {original_text} in {args.city}',
        result,
        args: { city: 'Baku' },
      }),
    ).toEqual({
      text: 'Weather: sunny in Baku',
    });
    expect(await call(api, 'rules.preview', { template: '{original_payload}', result })).toEqual({
      text: JSON.stringify(result),
    });
    expect(await failure(api.call('rules.preview', { template: 'x', result: [] }))).toContain('result: ');
    expect(await failure(api.call('rules.get', { id: 'p99' }))).toBe('id: no proxy "p99"');
  });
});
