import { afterEach, describe, expect, it } from 'vitest';
import { agent, B_TOOL_NAMES, cleanup, fakeUpstream, instance, putUntilNotified, textOf } from './harness.js';
import type { ConnectedClient } from '../fixtures/client.js';

// PUT /api/sessions/{sid}/tools replaces the overlay (and optionally the upstream) of a live session and tells its
// connected agents with notifications/tools/list_changed.
afterEach(cleanup);

const LIST_CHANGED = 'notifications/tools/list_changed';
const listChanged = (c: ConnectedClient): number => c.notifications.filter((n) => n.method === LIST_CHANGED).length;
const names = async (c: ConnectedClient): Promise<string[]> =>
  (await c.client.listTools()).tools.map((t) => t.name).sort();

describe('serve: PUT /tools and tools/list_changed', () => {
  it('notifies every agent of the session (and only of that session); the new list is what they see next', async () => {
    const b = await fakeUpstream();
    const a = await instance();
    const s1 = await a.api.create({ upstream: { url: b.session.mcp.path_url } });
    const s2 = await a.api.create({ upstream: { url: b.session.mcp.path_url } });
    const c1 = await agent(s1);
    const c1b = await agent(s1, 'path');
    const c2 = await agent(s2, 'x-header');
    expect(await names(c1)).toEqual([...B_TOOL_NAMES].sort());

    // s2's agent has its stream open once a PUT on s2 reaches it
    expect((await putUntilNotified(a.api, s2.session_id, { tools: [] }, 1)).notified).toBe(1);
    await expect.poll(() => listChanged(c2), { timeout: 5000 }).toBe(1);

    const body = {
      passthrough: false,
      tools: [
        { name: 'weather', description: 'v2 weather' },
        {
          name: 'brand_new',
          input_schema: { type: 'object', properties: { x: { type: 'string' } } },
          behavior: { type: 'override', response: { text: 'new!' } },
        },
      ],
    };
    const put = await putUntilNotified(a.api, s1.session_id, body, 2);
    expect(put.notified).toBe(2); // both agents of s1, not s2's
    expect(put.passthrough).toBe(false);
    expect(put.tools.map((t) => [t.name, t.origin]).sort()).toEqual([
      ['brand_new', 'synthetic'],
      ['weather', 'overlay'],
    ]);

    await expect.poll(() => listChanged(c1), { timeout: 5000 }).toBeGreaterThan(0);
    await expect.poll(() => listChanged(c1b), { timeout: 5000 }).toBeGreaterThan(0);
    expect(await names(c1)).toEqual(['brand_new', 'weather']);
    expect(await names(c1b)).toEqual(['brand_new', 'weather']);
    expect((await c1.client.listTools()).tools.find((t) => t.name === 'weather')?.description).toBe('v2 weather');
    expect(textOf(await c1.client.callTool({ name: 'brand_new', arguments: { x: 'y' } }))).toBe('new!');
    expect(textOf(await c1.client.callTool({ name: 'weather', arguments: { city: 'Baku' } }))).toBe('B: sunny');

    // s2 is untouched: same list, no further notification
    expect(await names(c2)).toEqual([...B_TOOL_NAMES].sort());
    expect(listChanged(c2)).toBe(1);
    expect((await a.api.putTools(s1.session_id, body)).notified).toBe(2);

    const detail = await a.api.detail(s1.session_id);
    expect(detail.overlay).toEqual(body.tools);
    expect(detail.passthrough).toBe(false);
    expect((await a.api.tools(s1.session_id)).tools.map((t) => t.name).sort()).toEqual(['brand_new', 'weather']);
  });

  it('answers notified 0 when no agent is connected, and a later agent sees the new list', async () => {
    const { api } = await instance();
    const s = await api.create({
      tools: [
        { name: 'old', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'old' } } },
      ],
    });
    const put = await api.putTools(s.session_id, {
      tools: [
        { name: 'new', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'new' } } },
      ],
    });
    expect(put.notified).toBe(0);
    expect(put.tools.map((t) => t.name)).toEqual(['new']);
    const c = await agent(s);
    expect(await names(c)).toEqual(['new']);
    expect(textOf(await c.client.callTool({ name: 'new', arguments: {} }))).toBe('new');
  });

  it('switches the upstream, keeps it when absent, detaches it with null', async () => {
    const b1 = await fakeUpstream();
    const b2 = await fakeUpstream([
      {
        name: 'weather',
        input_schema: { type: 'object' },
        behavior: { type: 'override', response: { text: 'B2: snow' } },
      },
      {
        name: 'only_b2',
        input_schema: { type: 'object' },
        behavior: { type: 'override', response: { text: 'B2 only' } },
      },
    ]);
    const a = await instance();
    const s = await a.api.create({ upstream: { url: b1.session.mcp.path_url } });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'X' } }))).toBe('B: sunny');

    // switch: B2 answers from now on
    await putUntilNotified(a.api, s.session_id, { tools: [], upstream: { url: b2.session.mcp.path_url } });
    await expect.poll(() => listChanged(c), { timeout: 5000 }).toBeGreaterThan(0);
    expect((await a.api.detail(s.session_id)).upstream?.url).toBe(b2.session.mcp.path_url);
    await expect.poll(() => names(c), { timeout: 5000 }).toEqual(['only_b2', 'weather']);
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'Y' } }))).toBe('B2: snow');
    expect(textOf(await c.client.callTool({ name: 'only_b2', arguments: {} }))).toBe('B2 only');

    // absent upstream: kept
    await a.api.putTools(s.session_id, { tools: [{ name: 'weather', description: 'kept upstream' }] });
    expect((await a.api.detail(s.session_id)).upstream?.url).toBe(b2.session.mcp.path_url);
    expect(textOf(await c.client.callTool({ name: 'weather', arguments: { city: 'Z' } }))).toBe('B2: snow');

    // null: detached, only the overlay's own tools remain
    await a.api.putTools(s.session_id, {
      upstream: null,
      tools: [
        {
          name: 'alone',
          input_schema: { type: 'object' },
          behavior: { type: 'override', response: { text: 'no upstream' } },
        },
      ],
    });
    expect((await a.api.detail(s.session_id)).upstream).toBeNull();
    expect((await a.api.tools(s.session_id)).tools.map((t) => t.name)).toEqual(['alone']);
    expect(await names(c)).toEqual(['alone']);
    expect(textOf(await c.client.callTool({ name: 'alone', arguments: {} }))).toBe('no upstream');

    expect((await b1.api.calls(b1.session.session_id)).map((x) => x.arguments)).toEqual([{ city: 'X' }]);
    expect((await b2.api.calls(b2.session.session_id)).map((x) => [x.tool, x.arguments])).toEqual([
      ['weather', { city: 'Y' }],
      ['only_b2', {}],
      ['weather', { city: 'Z' }],
    ]);
  });
});
