import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BreakpointRuleInput, BreakpointsState } from '../../src/shared/breakpoints.js';
import { parseFieldPattern } from '../../src/shared/json-path.js';
import { OverlaySchema, RulesFileSchema, describeZodError } from '../../src/shared/rules/schema.js';
import { valuesAt } from '../../src/main/engine/rules/condition.js';
import { AppController } from '../../src/main/api/app-controller.js';
import type { RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import type { SdkServerHandle } from '../fixtures/sdk-server.js';
import { removeTempDirs } from '../helpers/temp.js';
import { breakpointPeers, finalEvent, pausedIn } from '../helpers/breakpoint-peers.js';
import { app, call, cleanup, client as apiClient, failure, textOf, upstream as apiUpstream } from '../api/harness.js';

// Conditional breakpoints (issue 25 item 11): a breakpoint holds only the requests whose params (and, before the
// response, whose result) match its condition, on any client request method, in one proxy or in every proxy.
// Real SDK clients and servers on loopback.

const { keep, closeAll, upstream, proxy, client } = breakpointPeers();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
  await cleanup();
});

/** A live proxy in front of a real SDK server, with one breakpoint set, and a real SDK client on it. */
async function held(
  rule: BreakpointRuleInput,
): Promise<{ p: RunningProxy; c: ConnectedClient; server: SdkServerHandle }> {
  const server = await upstream();
  const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
  p.breakpoints.set([rule]);
  return { p, c: await client(p.url), server };
}

describe('a condition on the arguments', () => {
  it.each([
    { op: 'equals' as const, value: 'hold me', miss: 'hold me too' },
    { op: 'contains' as const, value: 'secret', miss: 'public' },
    { op: 'regex' as const, value: '/^ID-\\d+$/i', miss: 'ID-x1' },
  ])('$op: a matching call is held, a call that does not match goes straight through', async ({ op, value, miss }) => {
    const { p, c, server } = await held({
      tool: 'echo',
      when: 'request',
      condition: { path: 'params.arguments.text', op, value },
    });
    // the one that does not match is answered without anyone resuming it
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: miss } }))).toBe(`echo: ${miss}`);
    expect(p.breakpoints.paused()).toEqual([]);

    const hit = op === 'equals' ? value : op === 'contains' ? 'a secret word' : 'id-42';
    const pending = c.client.callTool({ name: 'echo', arguments: { text: hit } });
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({ tool: 'echo', stage: 'request', arguments: { text: hit } });
    expect(paused.matched).toContain(`params.arguments.text ${op === 'regex' ? 'matches' : op}`);
    expect(server.calls.map((x) => x.args)).toEqual([{ text: miss }]); // the held one has not gone upstream
    p.breakpoints.resume(paused.id);
    expect(textOf(await pending)).toBe(`echo: ${hit}`);
  });

  it('a number compares as it is written; a path that is not there never matches', async () => {
    const { p, c } = await held({
      tool: 'add',
      when: 'request',
      condition: { path: 'params.arguments.a', op: 'equals', value: '2' },
    });
    expect((await c.client.callTool({ name: 'add', arguments: { a: 20, b: 1 } })).structuredContent).toEqual({
      sum: 21,
    });
    const pending = c.client.callTool({ name: 'add', arguments: { a: 2, b: 1 } });
    const [paused] = await pausedIn(p.breakpoints);
    p.breakpoints.resume(paused.id, { arguments: { a: 2, b: 40 } });
    expect((await pending).structuredContent).toEqual({ sum: 42 });

    p.breakpoints.set([
      { tool: '*', when: 'request', condition: { path: 'params.arguments.missing', op: 'regex', value: '' } },
    ]);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('echo: x');
  });

  it('before the response, the condition sees the result: only a result that matches is held', async () => {
    const { p, c } = await held({
      tool: '*',
      when: 'response',
      condition: { path: 'result.content[*].text', op: 'contains', value: 'alarm' },
    });
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'calm' } }))).toBe('echo: calm');
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'alarm' } });
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({ stage: 'response', result: { content: [{ type: 'text', text: 'echo: alarm' }] } });
    p.breakpoints.resume(paused.id, { result: { content: [{ type: 'text', text: 'silenced' }] } });
    expect(textOf(await pending)).toBe('silenced');
  });
});

describe('any method', () => {
  it('resources/read: held by its URI with a condition on params; the edited params reach the upstream', async () => {
    const { p, c } = await held({
      method: 'resources/read',
      tool: '*',
      when: 'request',
      condition: { path: 'params.uri', op: 'regex', value: '^fixture://' },
    });
    expect((await c.client.listResources()).resources.map((r) => r.uri)).toEqual(['fixture://hello']); // not held
    const pending = c.client.readResource({ uri: 'fixture://nope' }).catch((e: unknown) => e);
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({
      method: 'resources/read',
      tool: 'fixture://nope',
      params: { uri: 'fixture://nope' },
    });
    expect(() => p.breakpoints.resume(paused.id, { arguments: {} })).toThrow(
      /arguments: .* holds a resources\/read: edit its params/,
    );
    p.breakpoints.resume(paused.id, { params: { uri: 'fixture://hello' } });
    expect(await pending).toMatchObject({ contents: [{ uri: 'fixture://hello', text: 'hello resource' }] });
  });

  it('prompts/get before the response: the result is checked against GetPromptResult, then edited', async () => {
    const { p, c } = await held({
      method: 'prompts/get',
      tool: 'greet',
      when: 'response',
      condition: { path: 'params.arguments.name', op: 'equals', value: 'Ada' },
    });
    expect((await c.client.getPrompt({ name: 'greet', arguments: { name: 'Bob' } })).messages).toHaveLength(1);
    const pending = c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    const [paused] = await pausedIn(p.breakpoints);
    expect(paused).toMatchObject({ method: 'prompts/get', tool: 'greet', stage: 'response' });
    expect(() => p.breakpoints.resume(paused.id, { result: { messages: 'none' } })).toThrow(/not a GetPromptResult/);
    const edited = { messages: [{ role: 'user', content: { type: 'text', text: 'Edited, Ada.' } }] };
    p.breakpoints.resume(paused.id, { result: edited });
    expect((await pending).messages).toEqual(edited.messages);
  });

  it("'*' holds every method but initialize; a held call the client cancels is released at once, the row says so", async () => {
    const { p, c, server } = await held({
      method: '*',
      tool: '*',
      when: 'request',
      condition: { path: 'method', op: 'contains', value: 'prompts' },
    });
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0); // initialize and tools/list not held
    const ended = finalEvent(p, 'prompts/list');
    const abort = new AbortController();
    const listing = c.client.listPrompts(undefined, { signal: abort.signal }).catch((e: unknown) => e);
    await pausedIn(p.breakpoints);
    abort.abort('gave up');
    await listing;
    const event = await ended;
    expect(p.breakpoints.paused()).toEqual([]);
    expect(event.final).toBe('cancelled');
    expect(event.flags).toContain('released at a breakpoint: the client cancelled it');
    expect(server.calls).toEqual([]);
  });

  it('a held resources/read whose client goes away is released at once, the row says client gone', async () => {
    const server = await upstream();
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
    p.breakpoints.set([{ method: 'resources/read', tool: 'fixture://hello', when: 'request' }]);
    const c = await connectClient(p.url, { terminateOnClose: false });
    const ended = finalEvent(p, 'resources/read');
    void c.client.readResource({ uri: 'fixture://hello' }).catch(() => undefined);
    await pausedIn(p.breakpoints);
    await c.close();
    const event = await ended;
    expect(p.breakpoints.paused()).toEqual([]);
    expect(event.final).toBe('client-gone');
    expect(event.flags).toContain('released at a breakpoint: the client went away');
  });
});

describe('breakpoints of every proxy, through the API', () => {
  it('apply in each proxy (also one created later), are listed under "*", saved, and bad conditions are refused clearly', async () => {
    const { api, controller, dataDir } = await app();
    const server = await apiUpstream();
    const first = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const rule = {
      tool: 'echo',
      when: 'request' as const,
      condition: { path: 'params.arguments.text', op: 'contains' as const, value: 'stop' },
    };
    const set = await call(api, 'breakpoints.set', { proxyId: '*', rules: [rule] });
    expect(set.rules['*']).toMatchObject([rule]);
    const second = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });

    for (const info of [first, second]) {
      const c = await apiClient(info.url!);
      expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'go' } }))).toBe('echo: go');
      const pending = c.client.callTool({ name: 'echo', arguments: { text: 'stop here' } });
      let state: BreakpointsState;
      do state = await call(api, 'breakpoints.list', {});
      while (state.paused.length === 0 && (await new Promise((r) => setTimeout(r, 10)), true));
      expect(state.paused).toMatchObject([
        { proxyId: info.id, tool: 'echo', matched: 'echo if params.arguments.text contains "stop"' },
      ]);
      await call(api, 'breakpoints.resume', { id: state.paused[0].id });
      expect(textOf(await pending)).toBe('echo: stop here');
    }

    const bad = (condition: unknown): Promise<string> =>
      failure(
        call(api, 'breakpoints.set', {
          proxyId: '*',
          rules: [{ tool: '*', when: 'request', condition } as BreakpointRuleInput],
        }),
      );
    expect(await bad({ path: 'params.arguments.text', op: 'regex', value: '(' })).toMatch(
      /condition\.value: not a regular expression/,
    );
    expect(await bad({ path: 'params..', op: 'equals', value: 'x' })).toMatch(
      /condition\.path: field pattern "params\.\.": /,
    );
    expect(await bad({ path: '', op: 'equals', value: 'x' })).toMatch(/condition\.path: a path is needed/);
    expect(await bad({ path: 'a', op: 'like', value: 'x' })).toMatch(/condition\.op/);
    expect(
      await failure(
        call(api, 'breakpoints.set', { proxyId: '*', rules: [{ tool: '*', when: 'request', method: 'initialize' }] }),
      ),
    ).toMatch(/initialize cannot be held/);
    await controller.close();

    // saved in workspace.json, and there again at the next start
    const saved = JSON.parse(await readFile(join(dataDir, 'workspace.json'), 'utf8'));
    expect(saved.everyProxy).toEqual([rule]);
    const again = keep(new AppController({ dataDir, log: () => {} }));
    expect(again.breakpoints.state().rules['*']).toMatchObject([rule]);
    await again.close();
  });
});

describe('paths', () => {
  it('reach every value a wildcard or a ** step reaches, and none that is not there', () => {
    const message = { params: { arguments: { items: [{ id: 'a' }, { id: 'b', deep: { token: 't' } }] } } };
    expect(valuesAt(message, parseFieldPattern('params.arguments.items[*].id'))).toEqual(['a', 'b']);
    expect(valuesAt(message, parseFieldPattern('$..token'))).toEqual(['t']);
    expect(valuesAt(message, parseFieldPattern('params.arguments.items[1].id'))).toEqual(['b']);
    expect(valuesAt(message, parseFieldPattern('params.nothing.here'))).toEqual([]);
  });
});

describe('conditional tool rules', () => {
  it('the behavior applies to the calls that match; the others are relayed to the upstream', async () => {
    const server = await upstream();
    const overlay = OverlaySchema.parse({
      tools: [
        {
          name: 'echo',
          condition: { path: 'params.arguments.text', op: 'regex', value: '^drop table' },
          behavior: { type: 'override', response: { text: 'refused by a rule', is_error: true } },
        },
        {
          name: 'add',
          condition: { path: 'params.arguments.a', op: 'equals', value: '7' },
          behavior: { type: 'inject', template: 'lucky {original_text}' },
        },
      ],
    });
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url, rules: { overlay } });
    const c = await client(p.url);
    const refused = await c.client.callTool({ name: 'echo', arguments: { text: 'drop table users' } });
    expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: 'refused by a rule' }] });
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'select 1' } }))).toBe('echo: select 1');
    expect(server.calls.map((x) => x.args)).toEqual([{ text: 'select 1' }]); // the matching call never went upstream

    expect(textOf(await c.client.callTool({ name: 'add', arguments: { a: 7, b: 1 } }))).toBe('lucky 8');
    expect(textOf(await c.client.callTool({ name: 'add', arguments: { a: 6, b: 1 } }))).toBe('7');
    const listed = (await c.client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(['echo', 'add'])); // a condition hides nothing
  });

  it('a bad condition in a rules file is refused, naming the field', () => {
    const bad = RulesFileSchema.safeParse({
      tools: [{ name: 'echo', condition: { path: 'params.arguments[', op: 'equals', value: 'x' } }],
    });
    expect(bad.success).toBe(false);
    expect(describeZodError(bad.error!)).toMatch(
      /^tools\.0\.condition\.path: field pattern "params\.arguments\[": an unclosed \[/,
    );
  });
});
