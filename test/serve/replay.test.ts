import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { tempDir } from '../helpers/temp.js';
import { agent, cleanup, instance, rejection, textOf } from './harness.js';

// Beyond MiMCP: rules apply to replayed traffic too. A cassette is recorded once with the CLI proxy, the upstream is
// stopped, and a serve session replays that cassette with inject / override rules and no upstream at all.
afterEach(cleanup);

/** Records tools/list, echo "hi", add 2+40 and a failing call into a fresh cassette folder; the upstream is gone afterwards. */
async function recordCassette(): Promise<string> {
  const server = await startSdkServer();
  const cacheDir = await tempDir();
  const proxy = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
  const c = await connectClient(proxy.url);
  try {
    await c.client.listTools();
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect((await c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).structuredContent).toEqual({
      sum: 42,
    });
    await c.client.callTool({ name: 'fail', arguments: {} });
  } finally {
    await c.close();
    await proxy.close();
    await server.close();
  }
  return cacheDir;
}

const RULES = [
  {
    name: 'echo',
    behavior: { type: 'inject', template: '[{original_text}] for {args.text}, payload {original_payload}' },
  },
  {
    name: 'add',
    description: 'Adds, badly',
    behavior: { type: 'override', response: { text: 'no math today', structured_content: { sum: -1 } } },
  },
  {
    name: 'fake',
    input_schema: { type: 'object' },
    behavior: { type: 'override', response: { text: 'synthetic in replay' } },
  },
];

describe('serve: rules on replayed traffic', () => {
  it('injects into and overrides cached results with no upstream; relays the rest from the cassette', async () => {
    const cassette = await recordCassette();
    const { api } = await instance();
    const s = await api.create({ mode: 'replay', cassette, tools: RULES });
    expect(s.mode).toBe('replay');
    expect(s.upstream).toBeNull();
    const detail = await api.detail(s.session_id);
    expect(detail).toMatchObject({ mode: 'replay', cassette, upstream: null });

    const c = await agent(s);
    const listed = (await c.client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'fail', 'fake']));
    expect(listed.find((t) => t.name === 'add')?.description).toBe('Adds, badly');

    const echo = await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const text = textOf(echo);
    expect(text.startsWith('[echo: hi] for hi, payload ')).toBe(true);
    expect(JSON.parse(text.slice('[echo: hi] for hi, payload '.length))).toMatchObject({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect(echo.isError).toBeFalsy();

    // add has an outputSchema upstream: the override's structured content must still satisfy it for the SDK client
    const add = await c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(add).toMatchObject({ content: [{ type: 'text', text: 'no math today' }], structuredContent: { sum: -1 } });

    // an untouched tool is replayed as recorded (relay from the cassette)
    const fail = await c.client.callTool({ name: 'fail', arguments: {} });
    expect(fail).toMatchObject({ isError: true, content: [{ type: 'text', text: 'failed on purpose' }] });

    expect(textOf(await c.client.callTool({ name: 'fake', arguments: {} }))).toBe('synthetic in replay');

    const calls = await api.calls(s.session_id);
    expect(calls.map((x) => [x.tool, x.behavior, x.is_error])).toEqual([
      ['echo', 'inject', false],
      ['add', 'override', false],
      ['fail', 'relay', true],
      ['fake', 'override', false],
    ]);
    expect(calls[0].response).toMatchObject({ content: [{ type: 'text', text }] });
  });

  it('injects into a cached result even when the agent calls before listing tools', async () => {
    const cassette = await recordCassette();
    const { api } = await instance();
    const s = await api.create({ mode: 'replay', cassette, tools: [RULES[0]] });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toMatch(
      /^\[echo: hi\] for hi, payload /,
    );
  });

  it('hides unlisted cached tools with passthrough false', async () => {
    const cassette = await recordCassette();
    const { api } = await instance();
    const s = await api.create({ mode: 'replay', cassette, passthrough: false, tools: [{ name: 'echo' }] });
    const c = await agent(s);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect(await rejection(c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }))).toMatchObject({
      code: -32602,
    });
  });

  it('a PUT changes the rules applied to the same cached result', async () => {
    const cassette = await recordCassette();
    const { api } = await instance();
    const s = await api.create({ mode: 'replay', cassette, tools: [] });
    const c = await agent(s);
    await c.client.listTools();
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    await api.putTools(s.session_id, {
      tools: [{ name: 'echo', behavior: { type: 'inject', template: '{original_text} (tampered)' } }],
    });
    await c.client.listTools();
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi (tampered)');
  });
});
