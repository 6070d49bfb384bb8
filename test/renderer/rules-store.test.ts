import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { namedToolsServer } from '../helpers/hostile.js';
import type { RulesFile } from '../../src/shared/rules/schema.js';
import { api as currentApi, NOT_CONNECTED, provideApi } from '../../src/renderer/src/api/current.js';
import { useRules } from '../../src/renderer/src/stores/rules.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { checkDraft, emptyForm, syntheticForm } from '../../src/renderer/src/models/rules-form.js';
import { browserShell, closeAll, closers, eventually, mcpClient, textOf, upstream } from './shell.js';

/** The Rules store over the browser shell (startUi: AppController + the real handler table) and a real SDK upstream. */

afterEach(closeAll);
beforeEach(() => useRules.setState(useRules.getInitialState(), true));

const FIXTURE_TOOLS = ['add', 'counter', 'echo', 'elicit', 'fail', 'progress', 'sample'];
const names = (): string[] => useRules.getState().tools.map((t) => t.name);
const draftOf = () => {
  const { forms, passthrough, instructions } = useRules.getState();
  return checkDraft({ forms, passthrough, instructions });
};

async function proxyOnUpstream() {
  const { api } = await browserShell();
  closers.push(connectStores(api));
  const proxy = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: await upstream() });
  return { api, proxy };
}

describe('rules store', () => {
  it('uses the one injected api; taking back an older injection keeps the newer one; without one, calls fail alike', async () => {
    const { api } = await browserShell();
    await expect(currentApi().call('proxies.list', {})).rejects.toThrow(NOT_CONNECTED);
    await useRules.getState().load('p1');
    expect(useRules.getState().error).toBe(NOT_CONNECTED);
    const older = provideApi({ call: api.call, on: api.on });
    const detach = provideApi(api);
    expect(currentApi()).toBe(api);
    older();
    expect(currentApi()).toBe(api);
    detach();
    await expect(currentApi().call('proxies.list', {})).rejects.toThrow(NOT_CONNECTED);
  });

  it('loads the merged tool list, edits a draft, keeps it across a reload, applies it live', async () => {
    const { api, proxy } = await proxyOnUpstream();
    const c = await mcpClient(proxy.url!);
    await useRules.getState().load(proxy.id);
    let s = useRules.getState();
    expect(s).toMatchObject({ proxyId: proxy.id, loading: false, forms: [], passthrough: true, dirty: false });
    expect(s.error).toBeUndefined();
    expect([...names()].sort()).toEqual(FIXTURE_TOOLS);
    expect(s.tools.find((t) => t.name === 'echo')).toMatchObject({ behavior: 'relay', origin: 'upstream' });
    expect(Object.keys(s.seen).sort()).toEqual(FIXTURE_TOOLS);

    // editing a tool without a rule creates its form from the defaults
    useRules.getState().edit('echo', { behavior: 'override' });
    useRules.getState().edit('echo', { text: 'overridden!' });
    s = useRules.getState();
    expect(s.forms).toEqual([{ ...emptyForm('echo'), behavior: 'override', text: 'overridden!' }]);
    expect(s.dirty).toBe(true);

    // a reload (same proxy) refreshes the tools but keeps the unapplied draft
    await useRules.getState().load(proxy.id);
    expect(useRules.getState().forms).toHaveLength(1);
    expect(useRules.getState().dirty).toBe(true);

    const { rules } = draftOf();
    expect(rules).toBeDefined();
    await useRules.getState().apply(rules!);
    s = useRules.getState();
    expect(s).toMatchObject({
      applying: false,
      dirty: false,
      forms: [{ ...emptyForm('echo'), behavior: 'override', text: 'overridden!' }],
    });
    expect(typeof s.notified).toBe('number');
    expect(s.tools.find((t) => t.name === 'echo')).toMatchObject({ behavior: 'override', origin: 'overlay' });
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('overridden!');
    expect((await api.call('rules.get', { id: proxy.id })).rules).toEqual({
      passthrough: true,
      tools: [{ name: 'echo', behavior: { type: 'override', response: { text: 'overridden!' } } }],
    });

    // a reload of a clean draft takes the engine's rules (here set by another window)
    await api.call('rules.set', {
      id: proxy.id,
      rules: { tools: [{ name: 'echo', behavior: { type: 'override', response: { text: 'elsewhere' } } }] },
    });
    await useRules.getState().load(proxy.id);
    expect(useRules.getState().forms.map((f) => f.text)).toEqual(['elsewhere']);
    expect(useRules.getState().notified).toBe(s.notified); // still the answer of our last apply
    // an edit clears it
    useRules.getState().edit('echo', { text: 'again' });
    expect(useRules.getState().notified).toBeUndefined();
  });

  it('synthetic tools, passthrough off (hidden tools stay selectable), removing a rule', async () => {
    const { proxy } = await proxyOnUpstream();
    await useRules.getState().load(proxy.id);
    useRules.getState().addRule(syntheticForm('made-up'));
    useRules.getState().edit('echo', { behavior: 'inject', template: '[{original_text}]' });
    useRules.getState().setPassthrough(false);
    expect(useRules.getState()).toMatchObject({ selected: 'made-up', passthrough: false, dirty: true });
    // addRule replaces a form of the same name (and moves it last)
    useRules.getState().addRule({ ...syntheticForm('made-up'), text: 'synthetic' });
    expect(useRules.getState().forms.map((f) => [f.name, f.text])).toEqual([
      ['echo', ''],
      ['made-up', 'synthetic'],
    ]);

    await useRules.getState().apply(draftOf().rules!);
    expect(useRules.getState().error).toBeUndefined();
    expect(useRules.getState().tools.map((t) => [t.name, t.behavior, t.origin])).toEqual([
      ['echo', 'inject', 'overlay'],
      ['made-up', 'override', 'synthetic'],
    ]);
    expect(Object.keys(useRules.getState().seen).sort()).toEqual([...FIXTURE_TOOLS, 'made-up'].sort());

    useRules.getState().removeRule('made-up');
    useRules.getState().setPassthrough(true);
    await useRules.getState().apply(draftOf().rules!);
    expect(names()).not.toContain('made-up');
    expect([...names()].sort()).toEqual(FIXTURE_TOOLS);
    expect(useRules.getState().seen['made-up']).toBeDefined(); // still remembered
  });

  it('shows the engine refusing an apply, and a load of an unknown proxy', async () => {
    const { proxy } = await proxyOnUpstream();
    await useRules.getState().load(proxy.id);
    const bad = {
      passthrough: true,
      tools: [{ name: 'x', behavior: { type: 'override', response: { delay_s: -1 } } }],
    } as unknown as RulesFile;
    await useRules.getState().apply(bad);
    expect(useRules.getState().applying).toBe(false);
    expect(useRules.getState().error).toMatch(/^rules\.set: invalid input: .*delay_s/);

    await useRules.getState().load('nope');
    expect(useRules.getState()).toMatchObject({ proxyId: 'nope', loading: false, tools: [], seen: {}, forms: [] });
    expect(useRules.getState().error).toMatch(/no proxy "nope"/);
  });

  it('switching proxies drops the previous draft and selection; apply without a proxy does nothing', async () => {
    await useRules.getState().apply({ passthrough: true, tools: [] }); // no proxy loaded: a no-op
    expect(useRules.getState().applying).toBe(false);

    const { api, proxy } = await proxyOnUpstream();
    const other = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: await upstream() });
    await api.call('rules.set', {
      id: other.id,
      rules: { passthrough: true, tools: [{ name: 'add', description: 'sum' }] },
    });
    await useRules.getState().load(proxy.id);
    useRules.getState().addRule(syntheticForm('draft-only'));
    expect(useRules.getState().selected).toBe('draft-only');

    const switching = useRules.getState().load(other.id);
    expect(useRules.getState()).toMatchObject({
      proxyId: other.id,
      loading: true,
      forms: [],
      tools: [],
      selected: undefined,
      dirty: false,
    });
    await switching;
    expect(useRules.getState().forms.map((f) => [f.name, f.description])).toEqual([['add', 'sum']]);
    await eventually(
      () => useRules.getState().tools.find((t) => t.name === 'add')?.description === 'sum',
      'the merged add tool',
    );
  });

  it('a slow answer for a proxy no longer shown is dropped', async () => {
    const { api } = await browserShell();
    closers.push(connectStores(api));
    // an upstream whose tools/list waits until the test lets it answer
    const held: Array<() => void> = [];
    const slow = await startCustomUpstream(() => {
      const server = new Server({ name: 'slow', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        await new Promise<void>((resolve) => held.push(resolve));
        return { tools: [{ name: 'slow-tool', inputSchema: { type: 'object' } }] };
      });
      return server;
    });
    closers.push(() => slow.close());
    const stale = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: slow.url });
    const shown = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: await upstream() });

    const first = useRules.getState().load(stale.id);
    await eventually(() => held.length > 0, 'the held tools/list');
    await useRules.getState().load(shown.id);
    expect([...names()].sort()).toEqual(FIXTURE_TOOLS);
    for (const release of held.splice(0)) release();
    await first;
    expect(useRules.getState()).toMatchObject({ proxyId: shown.id, loading: false });
    expect([...names()].sort()).toEqual(FIXTURE_TOOLS);
    expect(useRules.getState().seen['slow-tool']).toBeUndefined();
  });

  it('switching proxy while an apply is in flight leaves Apply usable on the new proxy', async () => {
    const { api, proxy } = await proxyOnUpstream();
    const other = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: await upstream() });
    await useRules.getState().load(proxy.id);
    const applying = useRules.getState().apply({ passthrough: true, tools: [] });
    const switching = useRules.getState().load(other.id);
    await Promise.all([applying, switching]);
    expect(useRules.getState()).toMatchObject({ proxyId: other.id, applying: false });
  });
});

describe('rules store: tools named like Object.prototype’s members', () => {
  it('keeps each one seen under its own name (`__proto__` too), and finds none it was not sent', async () => {
    const { api } = await browserShell();
    closers.push(connectStores(api));
    const NAMES = ['constructor', '__proto__', 'valueOf'];
    const named = await namedToolsServer(NAMES);
    closers.push(() => named.close());
    const proxy = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: named.url });
    await useRules.getState().load(proxy.id);
    const { seen } = useRules.getState();
    expect(Object.keys(seen).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(seen[name]).toMatchObject({ name, origin: 'upstream' });
    expect(seen.toString).toBeUndefined();
    expect(seen.hasOwnProperty).toBeUndefined();
  });
});
