import { afterEach, describe, expect, it } from 'vitest';
import { type McpError } from '@modelcontextprotocol/sdk/types.js';
import { OverlaySchema, RulesFileSchema, describeZodError } from '../../src/shared/rules/schema.js';
import { mergeTools, overrideResult } from '../../src/main/engine/rules/overlay.js';
import { renderTemplate } from '../../src/main/engine/rules/template.js';
import { RuleSet } from '../../src/main/engine/rules/rule-set.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const upstreamTools = [
  {
    name: 'echo',
    description: 'Echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  { name: 'add', description: 'Add', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
];

describe('inject templates', () => {
  const result = {
    content: [
      { type: 'text', text: 'one' },
      { type: 'image', data: 'x', mimeType: 'image/png' },
      { type: 'text', text: 'two' },
    ],
  };
  it('fill original_text, original_payload and args, and leave unknown placeholders', () => {
    expect(renderTemplate('[{original_text}]', result, {})).toBe('[one\ntwo]');
    expect(renderTemplate('{original_payload}', result, {})).toBe(JSON.stringify(result));
    expect(
      renderTemplate('{args.q} {args.n} {args.o} {args.missing} {nope}', result, { q: 'str', n: 3, o: { a: [1] } }),
    ).toBe('str 3 {"a":[1]} {args.missing} {nope}');
  });
});

describe('the tool overlay', () => {
  it('patches only the fields given, keeps upstream-only fields, adds synthetic tools, hides with passthrough false', () => {
    const overlay = OverlaySchema.parse({
      tools: [
        { name: 'echo', description: 'Patched', input_schema: null },
        { name: 'made-up', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'hi' } } },
      ],
    });
    const merged = mergeTools(upstreamTools, overlay);
    expect(merged.map((t) => [t.name, t.origin, t.behavior.type])).toEqual([
      ['echo', 'overlay', 'relay'],
      ['add', 'upstream', 'relay'],
      ['made-up', 'synthetic', 'override'],
    ]);
    expect(merged[0]).toMatchObject({ description: 'Patched', inputSchema: upstreamTools[0].inputSchema });
    const rules = new RuleSet(overlay);
    const listed = rules.rewriteToolsList({ tools: upstreamTools }, true).tools as Array<Record<string, unknown>>;
    expect(listed[0]).toEqual({ ...upstreamTools[0], description: 'Patched' }); // annotations kept
    expect(listed.map((t) => t.name)).toEqual(['echo', 'add', 'made-up']);
    expect(rules.rewriteToolsList({ tools: upstreamTools, nextCursor: 'p2' }, false).tools).toHaveLength(2); // synthetic tools only on page 1

    const hidden = new RuleSet(OverlaySchema.parse({ passthrough: false, tools: [{ name: 'add' }] }));
    expect(
      (hidden.rewriteToolsList({ tools: upstreamTools }, true).tools as Array<{ name: string }>).map((t) => t.name),
    ).toEqual(['add']);
    expect(hidden.planCall('echo', {}, upstreamTools, true)).toEqual({ kind: 'unknown-tool' });
  });

  it('plans calls: override answers here, relay/inject without a source explain themselves', () => {
    const rules = new RuleSet(
      OverlaySchema.parse({
        tools: [
          { name: 'echo', behavior: { type: 'inject', template: '{original_text}!' } },
          { name: 'ghost', input_schema: { type: 'object' } },
          {
            name: 'fixed',
            input_schema: { type: 'object' },
            behavior: {
              type: 'override',
              response: {
                content: [{ type: 'text', text: 'f' }],
                structured_content: { a: 1 },
                is_error: true,
                delay_s: 0.25,
              },
            },
          },
        ],
      }),
    );
    const fixed = rules.planCall('fixed', {}, upstreamTools, true);
    expect(fixed).toMatchObject({
      kind: 'answer',
      delayMs: 250,
      result: { content: [{ type: 'text', text: 'f' }], structuredContent: { a: 1 }, isError: true },
    });
    const ghost = rules.planCall('ghost', {}, upstreamTools, true);
    expect(ghost).toMatchObject({ kind: 'answer', result: { isError: true } });
    expect(JSON.stringify(ghost)).toContain('synthetic tool');
    const noSource = rules.planCall('echo', {}, undefined, false);
    expect(JSON.stringify(noSource)).toContain('no upstream server');
    const inject = rules.planCall('echo', { text: 'x' }, upstreamTools, true);
    expect(
      inject.kind === 'forward' &&
        inject.rewrite?.({ content: [{ type: 'text', text: 'up' }], structuredContent: { s: 1 } }),
    ).toEqual({
      content: [{ type: 'text', text: 'up!' }],
      structuredContent: { s: 1 },
    });
  });

  it('rejects bad definitions with a message naming the field', () => {
    const bad = RulesFileSchema.safeParse({
      tools: [{ name: 'a', behavior: { type: 'override', response: { text: 'x', content: [] } } }, { name: 'a' }],
    });
    expect(bad.success).toBe(false);
    const message = describeZodError(bad.error!);
    expect(message).toContain('tools.0.behavior.response');
    expect(message).toContain('tools.1.name: duplicate tool name "a"');
    expect(overrideResult({ text: 'plain' })).toEqual({ content: [{ type: 'text', text: 'plain' }] });
  });
});

describe('rules on a CLI proxy', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
    await removeTempDirs();
  });

  it('apply to live traffic and, unchanged, to the replay of what was recorded (the cassette keeps the truth)', async () => {
    const server = await startSdkServer();
    open.push(server);
    const cacheDir = await tempDir();
    const rules = {
      instructions: 'tampered instructions',
      overlay: OverlaySchema.parse({
        tools: [
          { name: 'echo', behavior: { type: 'inject', template: 'INJECTED({original_text})' } },
          { name: 'add', behavior: { type: 'override', response: { text: 'no math today' } } },
          {
            name: 'secret',
            input_schema: { type: 'object' },
            behavior: { type: 'override', response: { text: 'synthetic' } },
          },
        ],
      }),
    };
    const recording: RunningProxy = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, rules });
    open.push(recording);
    const c = await connectClient(recording.url);
    open.push(c);
    expect(c.client.getInstructions()).toBe('tampered instructions');
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('secret');
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'a' } })).toEqual({
      content: [{ type: 'text', text: 'INJECTED(echo: a)' }],
    });
    expect(await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({
      content: [{ type: 'text', text: 'no math today' }],
    });
    expect(server.calls.map((x) => x.tool)).toEqual(['echo']); // override never reached the upstream
    await c.close();
    await recording.close();
    await server.close();

    // plain replay: the recorded truth
    const plain = await startProxy({ mode: 'replay', cacheDir });
    open.push(plain);
    const p = await connectClient(plain.url);
    open.push(p);
    expect(await p.client.callTool({ name: 'echo', arguments: { text: 'a' } })).toEqual({
      content: [{ type: 'text', text: 'echo: a' }],
    });
    expect(p.client.getInstructions()).toBe('fixture instructions');

    // replay with the rules: tampered again, with no server
    const tampered = await startProxy({ mode: 'replay', cacheDir, rules });
    open.push(tampered);
    const t = await connectClient(tampered.url);
    open.push(t);
    expect(await t.client.callTool({ name: 'echo', arguments: { text: 'a' } })).toEqual({
      content: [{ type: 'text', text: 'INJECTED(echo: a)' }],
    });
    expect(await t.client.callTool({ name: 'secret', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'synthetic' }],
    });
    const miss = await t.client
      .callTool({ name: 'echo', arguments: { text: 'never recorded' } })
      .catch((e: unknown) => e);
    expect((miss as McpError).code).toBe(-32004);
  });
});
