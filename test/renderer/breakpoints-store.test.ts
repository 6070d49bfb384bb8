import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncBreakpoints, useBreakpoints } from '../../src/renderer/src/stores/breakpoints.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { tempDir } from '../helpers/temp.js';
import { browserShell, closeAll, closers, eventually, mcpClient, textOf, upstream } from './shell.js';

/** The Breakpoints store over the browser shell (startUi: AppController + the real handler table), real SDK peers. */

afterEach(closeAll);
beforeEach(() => useBreakpoints.setState(useBreakpoints.getInitialState(), true));

const state = () => useBreakpoints.getState();

async function recordingProxy() {
  const { api } = await browserShell();
  const proxy = await api.call('proxies.create', {
    mode: 'record',
    upstreamUrl: await upstream(),
    cacheDir: await tempDir('rewind-cassette-'),
  });
  return { api, proxy };
}

describe('breakpoints store', () => {
  it('refuses commands before it is attached', async () => {
    await expect(state().setRules('p', [])).rejects.toThrow('mcp-rewind: not connected to the engine yet');
    await expect(state().resume('x')).rejects.toThrow(/not connected/);
    await syncBreakpoints();
    expect(state()).toMatchObject({ loaded: false, error: 'mcp-rewind: not connected to the engine yet' });
  });

  it('loads the state, adds rules once each, removes them, and follows changes made by another window', async () => {
    const { api, proxy } = await recordingProxy();
    closers.push(connectStores(api));
    await eventually(() => state().loaded, 'the first load');
    expect(state()).toMatchObject({ rules: {}, paused: [], error: undefined });

    await state().add(proxy.id, { tool: 'echo', when: 'request' });
    await state().add(proxy.id, { tool: 'echo', when: 'request' }); // already there: no change
    await state().add(proxy.id, { tool: '*', when: 'response' });
    expect(state().rules[proxy.id]).toMatchObject([
      { tool: 'echo', when: 'request', id: expect.any(String) },
      { tool: '*', when: 'response', id: expect.any(String) },
    ]);
    expect((await api.call('breakpoints.list', {})).rules).toEqual(state().rules);

    await state().remove(proxy.id, state().rules[proxy.id][0].id);
    expect(state().rules[proxy.id]).toMatchObject([{ tool: '*', when: 'response' }]);
    await state().remove(proxy.id, state().rules[proxy.id][0].id);
    expect(state().rules).toEqual({}); // a proxy without breakpoints is left out

    // the engine's message names the bad field; the store is left as it was
    await expect(state().setRules('nope', [])).rejects.toThrow(/proxyId: no proxy "nope"/);
    await expect(state().add(proxy.id, { tool: '', when: 'request' })).rejects.toThrow(/tool/);
    expect(state().rules).toEqual({});

    // another window (same engine) sets breakpoints: the 'breakpoints' event brings them here
    await api.call('breakpoints.set', { proxyId: proxy.id, rules: [{ tool: 'add', when: 'request' }] });
    await eventually(() => state().rules[proxy.id]?.length === 1, 'the breakpoints event');
    expect(state().rules[proxy.id]).toMatchObject([{ tool: 'add', when: 'request' }]);
  });

  it('shows a paused call, resumes it with edited arguments, fails another with a message', async () => {
    const { api, proxy } = await recordingProxy();
    closers.push(connectStores(api));
    await eventually(() => state().loaded, 'the first load');
    await state().setRules(proxy.id, [
      { tool: 'echo', when: 'request' },
      { tool: 'add', when: 'response' },
    ]);
    const c = await mcpClient(proxy.url!);

    const echo = c.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    const paused = await eventually(() => state().paused[0], 'the paused echo');
    expect(paused).toMatchObject({ proxyId: proxy.id, tool: 'echo', stage: 'request', arguments: { text: 'a' } });
    await expect(state().resume(paused.id, { result: { content: [] } })).rejects.toThrow(/holds a request/);
    await state().resume(paused.id, { arguments: { text: 'b' } });
    expect(state().paused).toEqual([]);
    expect(textOf(await echo)).toBe('echo: b');
    await expect(state().resume(paused.id)).rejects.toThrow(/no call paused/);

    const add = c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }).catch((error: unknown) => error);
    const held = await eventually(() => state().paused.find((p) => p.tool === 'add'), 'the paused add');
    expect(held).toMatchObject({ stage: 'response', result: { content: [{ type: 'text', text: '5' }] } });
    await state().fail(held.id, 'not today');
    expect(state().paused).toEqual([]);
    expect(String(await add)).toContain('failed at a breakpoint: not today');

    // resume without edits lets the call through unchanged
    const again = c.client.callTool({ name: 'echo', arguments: { text: 'c' } });
    await state().resume((await eventually(() => state().paused[0], 'the second echo')).id);
    expect(textOf(await again)).toBe('echo: c');
  });

  it('stops following events once detached', async () => {
    const { api, proxy } = await recordingProxy();
    const detach = connectStores(api);
    await eventually(() => state().loaded, 'the first load');
    detach();
    await api.call('breakpoints.set', { proxyId: proxy.id, rules: [{ tool: 'echo', when: 'request' }] });
    await new Promise((r) => setTimeout(r, 200));
    expect(state().rules).toEqual({});
    await expect(state().setRules(proxy.id, [])).rejects.toThrow(/not connected/);
  });
});
