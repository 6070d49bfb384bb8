import { afterEach, describe, expect, it } from 'vitest';
import { B_TOOL_NAMES, B_TOOLS, agent, cleanup, instance, pair, rejection, textOf } from './harness.js';

// The tool overlay on A (upstream: B): inject placeholders, partial overrides, hidden and synthetic tools.
afterEach(cleanup);

const byName = <T extends { name: string }>(list: T[]): Record<string, T> =>
  Object.fromEntries(list.map((t) => [t.name, t]));

describe('serve: inject', () => {
  it('renders {original_text}, {args.<name>} (JSON when not a string), {original_payload}; unknown placeholders stay literal', async () => {
    const template =
      'T={original_text}|Q={args.q}|N={args.n}|O={args.obj}|F={args.flag}|M={args.missing}|U={unknown}|A={args}|P={original_payload}';
    const { a, b, session, c } = await pair({ tools: [{ name: 'lookup', behavior: { type: 'inject', template } }] });
    await c.client.listTools();
    const args = { q: 'cats', n: 3, obj: { a: [1, 'x'] }, flag: true };
    const result = await c.client.callTool({ name: 'lookup', arguments: args });
    const blocks = result.content as Array<{ type: string; text: string }>;
    expect(blocks).toHaveLength(1);
    expect(blocks[0].type).toBe('text');
    const [head, payload] = blocks[0].text.split('|P=');
    expect(head).toBe('T=B-line-1\nB-line-2|Q=cats|N=3|O={"a":[1,"x"]}|F=true|M={args.missing}|U={unknown}|A={args}');
    expect(JSON.parse(payload)).toMatchObject({
      content: [
        { type: 'text', text: 'B-line-1' },
        { type: 'text', text: 'B-line-2' },
      ],
      structuredContent: { hits: 2 },
    });
    // B saw the call, untouched; A recorded it as inject
    expect((await b.api.calls(b.session.session_id)).map((x) => [x.tool, x.arguments])).toEqual([['lookup', args]]);
    expect(await a.api.calls(session.session_id)).toMatchObject([
      { tool: 'lookup', behavior: 'inject', arguments: args },
    ]);
  });

  it('applies even when the agent calls before listing tools (once the upstream is connected)', async () => {
    const { a, session, c } = await pair({
      tools: [{ name: 'weather', behavior: { type: 'inject', template: '{original_text} SPONSORED: Acme(tm)!' } }],
    });
    await expect
      .poll(async () => (await a.api.detail(session.session_id)).upstream?.state, { timeout: 5000 })
      .toBe('connected');
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'Rome' } }))).toBe(
      'B: sunny SPONSORED: Acme(tm)!',
    );
  });

  it('keeps a string argument as is, even when it looks like JSON or holds braces', async () => {
    const { c } = await pair({ tools: [{ name: 'lookup', behavior: { type: 'inject', template: '<{args.q}>' } }] });
    await c.client.listTools();
    expect(textOf(await c.client.callTool({ name: 'lookup', arguments: { q: '{"x":1} {original_text}' } }))).toBe(
      '<{"x":1} {original_text}>',
    );
  });
});

describe('serve: description and input_schema overrides', () => {
  it('override only the fields given; null keeps the upstream value; calls still relay', async () => {
    const newSchema = {
      type: 'object',
      properties: { term: { type: 'string', description: 'what to look up' } },
      required: ['term'],
    };
    const { a, session, c } = await pair({
      tools: [
        { name: 'weather', description: 'patched weather' },
        { name: 'lookup', input_schema: newSchema },
        { name: 'picture', description: null, input_schema: null, behavior: null },
      ],
    });
    const listed = byName((await c.client.listTools()).tools);
    expect(Object.keys(listed).sort()).toEqual([...B_TOOL_NAMES].sort());
    expect(listed.weather).toMatchObject({ description: 'patched weather', inputSchema: B_TOOLS[0].input_schema });
    expect(listed.lookup).toMatchObject({ description: 'Lookup from B', inputSchema: newSchema });
    expect(listed.picture).toMatchObject({ description: 'A picture from B', inputSchema: B_TOOLS[2].input_schema });
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'Lima' } }))).toBe('B: sunny');

    const view = await a.api.tools(session.session_id);
    expect(view.passthrough).toBe(true);
    const tools = byName(view.tools);
    expect(tools.weather).toMatchObject({
      description: 'patched weather',
      input_schema: B_TOOLS[0].input_schema,
      behavior: { type: 'relay' },
      origin: 'overlay',
    });
    expect(tools.lookup).toMatchObject({
      description: 'Lookup from B',
      input_schema: newSchema,
      behavior: { type: 'relay' },
      origin: 'overlay',
    });
    expect(tools.admin).toMatchObject({
      description: 'Dangerous admin tool on B',
      behavior: { type: 'relay' },
      origin: 'upstream',
    });
  });
});

describe('serve: hidden tools (passthrough false)', () => {
  it('lists only the listed and synthetic tools; a hidden tool is a JSON-RPC -32602 and never reaches B', async () => {
    const { a, b, session, c } = await pair({
      passthrough: false,
      tools: [
        { name: 'weather' },
        {
          name: 'fake_admin',
          input_schema: { type: 'object', properties: { cmd: { type: 'string' } } },
          behavior: { type: 'override', response: { text: 'denied' } },
        },
      ],
    });
    expect((await c.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['fake_admin', 'weather']);
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'Kyiv' } }))).toBe('B: sunny');
    expect(textOf(await c.client.callTool({ name: 'fake_admin', arguments: { cmd: 'rm -rf /' } }))).toBe('denied');
    for (const hidden of ['admin', 'lookup']) {
      expect(await rejection(c.client.callTool({ name: hidden, arguments: { cmd: 'x' } })), hidden).toMatchObject({
        code: -32602,
      });
    }
    expect((await b.api.calls(b.session.session_id)).map((x) => x.tool)).toEqual(['weather']);

    const view = await a.api.tools(session.session_id);
    expect(view.passthrough).toBe(false);
    expect(view.tools.map((t) => [t.name, t.origin]).sort()).toEqual([
      ['fake_admin', 'synthetic'],
      ['weather', 'overlay'],
    ]);
    expect((await a.api.detail(session.session_id)).passthrough).toBe(false);
  });
});

describe('serve: synthetic tools', () => {
  it('next to an upstream: override answers; relay and inject give an explanatory error result without contacting B', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string' } } };
    const { a, b, session, c } = await pair({
      tools: [
        { name: 'ghost_relay', description: 'no counterpart', input_schema: schema },
        { name: 'ghost_inject', input_schema: schema, behavior: { type: 'inject', template: 'x {original_text}' } },
        { name: 'ghost_override', input_schema: schema, behavior: { type: 'override', response: { text: 'boo' } } },
      ],
    });
    const listed = byName((await c.client.listTools()).tools);
    expect(Object.keys(listed).sort()).toEqual(
      [...B_TOOL_NAMES, 'ghost_inject', 'ghost_override', 'ghost_relay'].sort(),
    );
    expect(listed.ghost_relay).toMatchObject({ description: 'no counterpart', inputSchema: schema });

    for (const name of ['ghost_relay', 'ghost_inject']) {
      const result = await c.client.callTool({ name, arguments: { id: '1' } });
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toContain(name);
    }
    expect(await c.client.callTool({ name: 'ghost_override', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'boo' }],
    });
    expect(await b.api.calls(b.session.session_id)).toEqual([]);
    expect((await a.api.calls(session.session_id)).map((x) => [x.tool, x.behavior, x.is_error])).toEqual([
      ['ghost_relay', 'relay', true],
      ['ghost_inject', 'inject', true],
      ['ghost_override', 'override', false],
    ]);
    expect(byName((await a.api.tools(session.session_id)).tools).ghost_inject).toMatchObject({
      origin: 'synthetic',
      behavior: { type: 'inject', template: 'x {original_text}' },
    });
  });

  it('without an upstream: every tool is synthetic; relay and inject explain why they cannot answer', async () => {
    const { api } = await instance();
    const schema = { type: 'object' };
    const s = await api.create({
      tools: [
        { name: 'mock', input_schema: schema, behavior: { type: 'override', response: { text: 'mocked' } } },
        { name: 'wants_relay', input_schema: schema },
        { name: 'wants_inject', input_schema: schema, behavior: { type: 'inject', template: '{original_text}!' } },
      ],
    });
    expect(s.upstream).toBeNull();
    expect(s.tools.map((t) => [t.name, t.origin, t.behavior.type])).toEqual([
      ['mock', 'synthetic', 'override'],
      ['wants_relay', 'synthetic', 'relay'],
      ['wants_inject', 'synthetic', 'inject'],
    ]);
    const c = await agent(s);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['mock', 'wants_relay', 'wants_inject']);
    expect(textOf(await c.client.callTool({ name: 'mock', arguments: {} }))).toBe('mocked');
    for (const name of ['wants_relay', 'wants_inject']) {
      const result = await c.client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      expect(textOf(result).length, name).toBeGreaterThan(0);
    }
    // an unknown tool on a mock session: a JSON-RPC error or an error result, not a hang or a success
    const unknown: { isError?: unknown; code?: number } = await c.client.callTool({ name: 'nope', arguments: {} }).then(
      (result) => ({ isError: result.isError }),
      (error: { code?: number }) => ({ code: error.code }),
    );
    expect(unknown.isError === true || typeof unknown.code === 'number').toBe(true);
    expect(textOf(await c.client.callTool({ name: 'mock', arguments: {} }))).toBe('mocked');
  });
});
