import { afterEach, describe, expect, it } from 'vitest';
import type { BreakpointRuleInput } from '../../src/shared/breakpoints.js';
import type { RunningProxy } from '../../src/main/engine/proxy.js';
import type { ConnectedClient } from '../fixtures/client.js';
import { removeTempDirs } from '../helpers/temp.js';
// this file waits for an exact count of paused calls (0: none left)
import { breakpointPeers, finalEvent, pausedExactly as pausedIn } from '../helpers/breakpoint-peers.js';
import { CONDITION_TEXT_MAX } from '../../src/shared/conditions.js';
import { compileCondition } from '../../src/main/engine/rules/condition.js';
import { app, call, cleanup, failure, textOf } from '../api/harness.js';

// Breakpoints on the client's replies to the server's requests (issue 25 item 11): a rule on sampling/createMessage
// holds the client's answer before it goes upstream; resumed, edited (checked against the SDK's CreateMessageResult)
// or failed, the server gets what the breakpoint made of it. Real SDK server (its `sample` tool asks the client),
// real SDK client answering sampling, on loopback.

const { closeAll, upstream, proxy, client } = breakpointPeers();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
  await cleanup();
});

async function held(rule: BreakpointRuleInput): Promise<{ p: RunningProxy; c: ConnectedClient }> {
  const server = await upstream();
  const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
  p.breakpoints.set([rule]);
  return { p, c: await client(p.url) };
}

const sampling = (condition?: BreakpointRuleInput['condition']): BreakpointRuleInput => ({
  tool: '*',
  when: 'response',
  method: 'sampling/createMessage',
  ...(condition ? { condition } : {}),
});

const sample = (c: ConnectedClient, prompt: string): Promise<unknown> =>
  c.client.callTool({ name: 'sample', arguments: { prompt } });

describe("a breakpoint on the client's reply to sampling/createMessage", () => {
  it('holds a matching reply before it goes upstream; the server gets the edited result', async () => {
    const { p, c } = await held(sampling({ path: 'params.messages[0].content.text', op: 'contains', value: 'haiku' }));
    // the server's params do not match: the client's reply goes straight on
    expect(textOf(await sample(c, 'a limerick'))).toBe('sampled: sampled-a limerick');
    expect(p.breakpoints.paused()).toEqual([]);

    const ended = finalEvent(p, 'tools/call');
    const pending = sample(c, 'write a haiku');
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({
      method: 'sampling/createMessage',
      reply: true,
      stage: 'response',
      tool: '',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'write a haiku' } }], maxTokens: 100 },
      result: { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled-write a haiku' } },
    });
    expect(paused.matched).toBe(
      `the client's reply to sampling/createMessage if params.messages[0].content.text contains "haiku"`,
    );
    // checked against the SDK's schema for the method's result; the reply stays held
    expect(() => p.breakpoints.resume(paused.id, { result: { content: { type: 'text' } } })).toThrow(
      /^result: not a CreateMessageResult .*result\.model/,
    );
    expect(() => p.breakpoints.resume(paused.id, { params: {} })).toThrow(/holds a result, not a request/);
    p.breakpoints.resume(paused.id, {
      result: { model: 'edited-model', role: 'assistant', content: { type: 'text', text: 'an edited haiku' } },
    });
    expect(textOf(await pending)).toBe('sampled: an edited haiku');
    const event = await ended;
    expect(event.flags).toContain('the reply to sampling/createMessage edited at a breakpoint');
    // the exchange keeps the reply the server got (what a recording files)
    const reply = event.stream.find((m) => !('method' in m)) as { result?: { model?: string } };
    expect(reply.result?.model).toBe('edited-model');
    expect(p.breakpoints.paused()).toEqual([]);
  });

  it("a condition on the client's result; fail gives the server a JSON-RPC error", async () => {
    const { p, c } = await held(sampling({ path: 'result.content.text', op: 'regex', value: '/SECRET/i' }));
    expect(textOf(await sample(c, 'nothing to see'))).toBe('sampled: sampled-nothing to see');
    expect(p.breakpoints.paused()).toEqual([]);

    const pending = sample(c, 'the secret plan');
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused.result).toMatchObject({ content: { text: 'sampled-the secret plan' } });
    p.breakpoints.fail(paused.id, 'not this one');
    // the fixture's tool turns the server's failed createMessage into a tool error: the error it got, in its words
    const failed = (await pending) as { isError?: boolean };
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('-32006');
    expect(textOf(failed)).toContain('mcp-rewind: failed at a breakpoint: not this one');
  });

  it('elicitation/create: the edited reply is checked as an ElicitResult and reaches the server', async () => {
    const { p, c } = await held({ tool: '*', when: 'response', method: 'elicitation/create' });
    const pending = c.client.callTool({ name: 'elicit', arguments: {} });
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({
      method: 'elicitation/create',
      reply: true,
      params: { message: 'What is your name?' },
      result: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(() => p.breakpoints.resume(paused.id, { result: { action: 'maybe' } })).toThrow(
      /^result: not a ElicitResult .*result\.action/,
    );
    p.breakpoints.resume(paused.id, { result: { action: 'accept', content: { name: 'Grace' } } });
    expect(textOf(await pending)).toBe('elicited: accept Grace');
  });

  it('roots/list sent on the GET stream: the reply is held and the server gets the edited roots', async () => {
    const server = await upstream();
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
    p.breakpoints.set([{ tool: '*', when: 'response', method: 'roots/list' }]);
    await client(p.url, { roots: [{ uri: 'file:///home/me/project', name: 'project' }] });
    const asked = server.listRoots(server.sessionIds()[0]);
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({
      method: 'roots/list',
      reply: true,
      result: { roots: [{ uri: 'file:///home/me/project', name: 'project' }] },
    });
    expect(() => p.breakpoints.resume(paused.id, { result: { roots: [{ name: 'no uri' }] } })).toThrow(
      /^result: not a ListRootsResult .*roots\[0\]\.uri/,
    );
    p.breakpoints.resume(paused.id, { result: { roots: [{ uri: 'file:///tmp/elsewhere' }] } });
    expect(await asked).toEqual({ roots: [{ uri: 'file:///tmp/elsewhere' }] });
  });

  it('is released at once when the client goes away', async () => {
    const { p, c } = await held(sampling());
    void sample(c, 'hold me').catch(() => undefined);
    await pausedIn(p.breakpoints);
    await c.close();
    await pausedIn(p.breakpoints, 0);
  });

  it('a rule on every method (*) does not hold replies', async () => {
    const { p, c } = await held({ tool: 'nothing-of-that-name', when: 'response', method: '*' });
    expect(textOf(await sample(c, 'free'))).toBe('sampled: sampled-free');
    expect(p.breakpoints.paused()).toEqual([]);
  });
});

describe('rules refused when they are set', () => {
  it('a catastrophic regex is refused with its reason; a server request is held at its reply only', async () => {
    const { api } = await app();
    const bad = (rule: BreakpointRuleInput): Promise<string> =>
      failure(call(api, 'breakpoints.set', { proxyId: '*', rules: [rule] }));
    expect(
      await bad({
        tool: '*',
        when: 'request',
        condition: { path: 'params.arguments.text', op: 'regex', value: '(a+)+$' },
      }),
    ).toMatch(/condition\.value: refused: \/\(a\+\)\+\$\/ nests a repetition inside a repetition .*exponential time/);
    expect(
      await bad({
        tool: '*',
        when: 'response',
        method: 'elicitation/create',
        condition: { path: 'result.content.name', op: 'regex', value: '/^(\\w+\\s?)*$/' },
      }),
    ).toMatch(/nests a repetition/);
    expect(await bad({ tool: '*', when: 'request', method: 'sampling/createMessage' })).toMatch(
      /when: sampling\/createMessage is a request of the server to the client: a breakpoint on it holds the client's reply, when: response/,
    );
    expect(await bad({ tool: 'x', when: 'response', method: 'roots/list' })).toMatch(/tool: roots\/list names nothing/);
    // a safe pattern and a reply rule are taken
    const set = await call(api, 'breakpoints.set', {
      proxyId: '*',
      rules: [
        { tool: '*', when: 'request', condition: { path: 'params.arguments.text', op: 'regex', value: '^ID-\\d+$' } },
        sampling(),
      ],
    });
    expect(set.rules['*']).toHaveLength(2);
  });

  it('a condition reads only the first CONDITION_TEXT_MAX characters of a value', () => {
    const text = `${'x'.repeat(CONDITION_TEXT_MAX - 6)}needle${'y'.repeat(CONDITION_TEXT_MAX)}needle-late`;
    const test = (value: string): boolean =>
      compileCondition({ path: 'params.arguments.text', op: 'regex', value })({
        method: 'tools/call',
        params: { arguments: { text } },
      });
    expect(test('needle$')).toBe(true); // the cut ends right after the first needle
    expect(test('needle-late')).toBe(false);
  });
});
