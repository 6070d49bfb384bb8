import { afterEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import {
  agent,
  B_TOOL_NAMES,
  B_TOOLS,
  cleanup,
  fakeUpstream,
  instance,
  pair,
  PNG_1X1,
  rejection,
  textOf,
} from './harness.js';

// As MiMCP's own end-to-end test: instance B is a fake upstream configured only over its REST API (a session with
// no upstream and synthetic override tools); instance A is the proxy under test, whose session's upstream is B.
afterEach(cleanup);

/** setTimeout may fire up to a millisecond early relative to performance.now(): the only tolerance we allow. */
const EARLY_MS = 2;

describe('serve: A in front of B (relay)', () => {
  it.each([{ viaHeader: false }, { viaHeader: true }])(
    'relays B unchanged: list, text, is_error, image, structured content (B token in a header: $viaHeader)',
    async ({ viaHeader }) => {
      const { a, b, session, c } = await pair({}, { viaHeader });
      const direct = await agent(b.session); // the same B session, without A in between

      const viaA = await c.client.listTools();
      const fromB = await direct.client.listTools();
      expect(viaA.tools.map((t) => t.name).sort()).toEqual([...B_TOOL_NAMES].sort());
      expect(
        viaA.tools
          .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
          .sort((x, y) => x.name.localeCompare(y.name)),
      ).toEqual(
        fromB.tools
          .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
          .sort((x, y) => x.name.localeCompare(y.name)),
      );

      const calls = [
        { name: 'weather', arguments: { city: 'Paris' } },
        { name: 'broken', arguments: {} },
        { name: 'picture', arguments: {} },
        { name: 'lookup', arguments: { q: 'cats' } },
      ];
      for (const call of calls) {
        const relayed = await c.client.callTool(call);
        expect(relayed, call.name).toEqual(await direct.client.callTool(call));
      }
      expect(textOf(await c.client.callTool(calls[0]))).toBe('B: sunny');
      expect(await c.client.callTool(calls[1])).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'B failed' }],
      });
      expect((await c.client.callTool(calls[2])).content).toEqual([
        { type: 'text', text: 'a pixel' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      ]);
      expect((await c.client.callTool(calls[3])).structuredContent).toEqual({ hits: 2 });

      if (viaHeader) {
        const detail = await a.api.detail(session.session_id);
        expect(detail.upstream?.headers).toEqual({ Authorization: '[REDACTED]' });
        expect(JSON.stringify(detail)).not.toContain(b.session.mcp.token);
      }
      await expect
        .poll(async () => (await a.api.detail(session.session_id)).upstream?.state, { timeout: 5000 })
        .toBe('connected');
    },
  );
});

describe('serve: override on A', () => {
  it('answers without contacting B, after delay_s, with content blocks, structured content and is_error', async () => {
    const { b, c } = await pair({
      tools: [
        { name: 'weather', behavior: { type: 'override', response: { text: 'A says rain', delay_s: 0.3 } } },
        {
          name: 'fake_rich',
          description: 'synthetic on A',
          input_schema: { type: 'object', properties: { x: { type: 'number' } } },
          behavior: {
            type: 'override',
            response: {
              content: [
                { type: 'text', text: 'first' },
                { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
                { type: 'text', text: 'last' },
              ],
              structured_content: { temp: 21, unit: 'C' },
              is_error: true,
            },
          },
        },
      ],
    });

    const t0 = performance.now();
    const weather = await c.client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
    const took = performance.now() - t0;
    expect(weather.content).toEqual([{ type: 'text', text: 'A says rain' }]);
    expect(weather.isError).toBeFalsy();
    expect(took).toBeGreaterThanOrEqual(300 - EARLY_MS);

    const rich = await c.client.callTool({ name: 'fake_rich', arguments: { x: 1 } });
    expect(rich).toMatchObject({
      isError: true,
      structuredContent: { temp: 21, unit: 'C' },
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        { type: 'text', text: 'last' },
      ],
    });

    // neither call reached B
    expect(await b.api.calls(b.session.session_id)).toEqual([]);
  });

  it('lets an override tool with no delay answer at once and a second call wait again', async () => {
    const { c } = await pair({
      tools: [
        {
          name: 'slow',
          input_schema: { type: 'object' },
          behavior: { type: 'override', response: { text: 'zzz', delay_s: 0.2 } },
        },
        { name: 'quick', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'now' } } },
      ],
    });
    for (let i = 0; i < 2; i++) {
      // the delayed call goes first; the undelayed one, sent while it waits, is answered before it
      const order: string[] = [];
      const t0 = performance.now();
      const slow = c.client.callTool({ name: 'slow', arguments: {} }).then((r) => (order.push('slow'), r));
      const quick = c.client.callTool({ name: 'quick', arguments: {} }).then((r) => (order.push('quick'), r));
      expect(textOf(await quick)).toBe('now');
      expect(textOf(await slow)).toBe('zzz');
      expect(performance.now() - t0).toBeGreaterThanOrEqual(200 - EARLY_MS); // each round's delayed call waits again
      expect(order, `round ${i + 1}`).toEqual(['quick', 'slow']);
    }
  });
});

describe('serve: call recording on both instances', () => {
  it('A records relay / inject / override; B records exactly what A forwarded', async () => {
    const { a, b, session, c } = await pair({
      tools: [
        { name: 'lookup', behavior: { type: 'inject', template: 'injected[{original_text}]' } },
        {
          name: 'fake',
          input_schema: { type: 'object' },
          behavior: { type: 'override', response: { text: 'from A', delay_s: 0.1 } },
        },
      ],
    });
    await c.client.callTool({ name: 'weather', arguments: { city: 'Paris', days: 3 } });
    await c.client.callTool({ name: 'lookup', arguments: { q: 'cats', n: 2 } });
    await c.client.callTool({ name: 'fake', arguments: { anything: [1, 2] } });
    await c.client.callTool({ name: 'broken', arguments: {} });

    const onA = await a.api.calls(session.session_id);
    expect(onA.map((x) => [x.tool, x.behavior, x.is_error])).toEqual([
      ['weather', 'relay', false],
      ['lookup', 'inject', false],
      ['fake', 'override', false],
      ['broken', 'relay', true],
    ]);
    expect(onA.map((x) => x.arguments)).toEqual([
      { city: 'Paris', days: 3 },
      { q: 'cats', n: 2 },
      { anything: [1, 2] },
      {},
    ]);
    expect(onA[0].response).toMatchObject({ content: [{ type: 'text', text: 'B: sunny' }] });
    expect(onA[1].response).toMatchObject({ content: [{ type: 'text', text: 'injected[B-line-1\nB-line-2]' }] }); // what the agent got
    expect(onA[2].response).toMatchObject({ content: [{ type: 'text', text: 'from A' }] });
    expect(onA[2].duration_ms).toBeGreaterThanOrEqual(100 - EARLY_MS);
    expect(onA[3].response).toMatchObject({ isError: true, content: [{ type: 'text', text: 'B failed' }] });
    expect((await a.api.detail(session.session_id)).calls).toBe(4);

    const onB = await b.api.calls(b.session.session_id);
    expect(onB.map((x) => [x.tool, x.arguments, x.behavior, x.is_error])).toEqual([
      ['weather', { city: 'Paris', days: 3 }, 'override', false],
      ['lookup', { q: 'cats', n: 2 }, 'override', false],
      ['broken', {}, 'override', true],
    ]);
    // B answered its own, untampered result
    expect(onB[1].response).toMatchObject({
      content: [
        { type: 'text', text: 'B-line-1' },
        { type: 'text', text: 'B-line-2' },
      ],
      structuredContent: { hits: 2 },
    });
  });
});

describe('serve: instructions', () => {
  it("reach the agent at initialize: the session's, else the serve default, never the upstream's", async () => {
    const b = await fakeUpstream();
    expect((await agent(b.session)).client.getInstructions()).toBe('B instructions');

    const a = await instance({ instructions: 'default from serve' });
    const own = await a.api.create({ upstream: { url: b.session.mcp.path_url }, instructions: 'A instructions' });
    const plain = await a.api.create({ upstream: { url: b.session.mcp.path_url } });
    const synthetic = await a.api.create({ tools: [B_TOOLS[0]] });
    expect((await agent(own)).client.getInstructions()).toBe('A instructions');
    expect((await agent(own, 'path')).client.getInstructions()).toBe('A instructions');
    expect((await agent(plain)).client.getInstructions()).toBe('default from serve');
    expect((await agent(synthetic)).client.getInstructions()).toBe('default from serve');
    expect((await a.api.detail(own.session_id)).instructions).toBe('A instructions');
  });
});

describe('serve: upstream timeout', () => {
  it('answers a relayed call that outlives upstreamTimeoutS with a JSON-RPC error, and records it', async () => {
    const slow = {
      name: 'slow',
      input_schema: { type: 'object' },
      behavior: { type: 'override', response: { text: 'too late', delay_s: 3 } },
    };
    const { a, session, c } = await pair({}, { a: { upstreamTimeoutS: 1 }, bTools: [slow] });
    const t0 = performance.now();
    const outcome = await rejection(c.client.callTool({ name: 'slow', arguments: {} }));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1000 - EARLY_MS);
    expect(outcome).not.toBe('resolved');
    expect(outcome).toMatchObject({ code: expect.any(Number) });

    const [call] = await a.api.calls(session.session_id);
    expect(call).toMatchObject({
      tool: 'slow',
      behavior: 'relay',
      response: { error: { code: expect.any(Number), message: expect.any(String) } },
    });
    // the session still works afterwards
    await a.api.putTools(session.session_id, {
      tools: [{ name: 'slow', behavior: { type: 'override', response: { text: 'fast now' } } }],
    });
    expect(textOf(await c.client.callTool({ name: 'slow', arguments: {} }))).toBe('fast now');
  });
});
