import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppServerRequest, TrafficEvent } from '../../src/shared/api.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, keep, textOf, upstream } from './harness.js';

afterEach(cleanup);

/** a recording proxy in front of the SDK fixture server, an agent's session on it, and the timeline's events */
async function setup() {
  const t = await app();
  const server = await upstream();
  const cacheDir = await tempDir();
  const traffic: TrafficEvent[] = [];
  t.api.on('traffic', (event) => void traffic.push(event));
  const proxy = await call(t.api, 'proxies.create', { name: 'rec', mode: 'record', upstreamUrl: server.url, cacheDir });
  const agent = await client(proxy.url as string);
  const find = (pred: (e: TrafficEvent) => boolean): Promise<TrafficEvent> =>
    expect
      .poll(() => traffic.find(pred), { timeout: 5_000 })
      .toBeTruthy()
      .then(() => traffic.find(pred) as TrafficEvent);
  return { ...t, server, cacheDir, traffic, proxy, agent, find };
}

describe('api: resend, edit and resend, compose — through the proxy, on the app session', () => {
  it('resends a tools/call: a second upstream call on the app session, with a fresh id, linked to its original', async () => {
    const { api, server, proxy, agent, find, traffic } = await setup();
    expect(textOf(await agent.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo: one');
    const original = await find((e) => e.tool === 'echo');
    expect(original.sentBy).toBeUndefined();

    const sent = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: original.request.method,
      params: original.request.params,
      kind: 'resend',
      from: original.seq,
    });
    expect(sent.response).toMatchObject({ result: { content: [{ type: 'text', text: 'echo: one' }] } });
    expect(server.calls.filter((c) => c.tool === 'echo')).toHaveLength(2);
    const again = await find((e) => e.seq === sent.seq);
    expect(again).toMatchObject({ tool: 'echo', sentBy: { kind: 'resend', from: original.seq }, proxyId: proxy.id });
    expect(again.seq).toBeGreaterThan(original.seq);
    // the app's own session, initialized for it: the agent's session is not the one used
    expect(again.sessionId).toBeDefined();
    expect(again.sessionId).not.toBe(original.sessionId);
    const appInit = traffic.find((e) => e.method === 'initialize' && e.sessionId === again.sessionId);
    expect(appInit?.sentBy).toEqual({ kind: 'app' });
    expect((appInit?.request.params?.clientInfo as { name: string }).name).toBe('mcp-rewind (app)');
    // the agent's session still works, with its own ids
    expect(textOf(await agent.client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('echo: two');

    // edit and resend: new arguments, a new result
    const edited = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'edited' } },
      kind: 'edit',
      from: original.seq,
    });
    expect(edited.response).toMatchObject({ result: { content: [{ text: 'echo: edited' }] } });
    expect((await find((e) => e.seq === edited.seq)).sentBy).toEqual({ kind: 'edit', from: original.seq });
  });

  it('keeps the progress of a resent call, answers sampling from the user, and refuses when asked to', async () => {
    const { api, proxy, agent, find } = await setup();
    await agent.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: () => {} });
    const original = await find((e) => e.tool === 'progress');
    const sent = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: original.request.params,
      kind: 'resend',
      from: original.seq,
    });
    const again = await find((e) => e.seq === sent.seq);
    expect(again.stream.filter((m) => 'method' in m && m.method === 'notifications/progress')).toHaveLength(3);

    const asked: AppServerRequest[][] = [];
    api.on('appRequests', (list) => void asked.push(list));
    const sampling = call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'sample', arguments: { prompt: 'a haiku' } },
      kind: 'compose',
    });
    await expect.poll(() => asked.at(-1)?.length).toBe(1);
    const question = (asked.at(-1) as AppServerRequest[])[0];
    expect(question).toMatchObject({
      proxyId: proxy.id,
      method: 'sampling/createMessage',
      params: { messages: [{ content: { text: 'a haiku' } }] },
    });
    expect(await call(api, 'appRequests.list', {})).toHaveLength(1);
    await call(api, 'appRequests.answer', {
      id: question.id,
      result: { role: 'assistant', content: { type: 'text', text: 'autumn moon' }, model: 'by hand' },
    });
    expect((await sampling).response).toMatchObject({ result: { content: [{ text: 'sampled: autumn moon' }] } });
    expect(await failure(call(api, 'appRequests.answer', { id: question.id, error: 'late' }))).toMatch(
      /answered already/,
    );

    const refused = call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'sample', arguments: { prompt: 'no' } },
      kind: 'compose',
    });
    await expect.poll(() => asked.at(-1)?.length).toBe(1);
    await call(api, 'appRequests.answer', { id: (asked.at(-1) as AppServerRequest[])[0].id, error: 'not now' });
    const answer = (await refused).response;
    expect(JSON.stringify(answer)).toMatch(/refused by the user: not now/);

    // elicitation: the user fills the requested form
    const eliciting = call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'elicit', arguments: {} },
      kind: 'compose',
    });
    await expect.poll(() => asked.at(-1)?.length).toBe(1);
    const form = (asked.at(-1) as AppServerRequest[])[0];
    expect(form).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What is your name?', requestedSchema: { required: ['name'] } },
    });
    await call(api, 'appRequests.answer', { id: form.id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect((await eliciting).response).toMatchObject({ result: { content: [{ text: 'elicited: accept Ada' }] } });
  });

  it('lists what the proxy offers, and says why a send cannot go', async () => {
    const { api, proxy } = await setup();
    const catalog = await call(api, 'exchange.catalog', { proxyId: proxy.id });
    expect(catalog.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'sample']));
    expect(catalog.tools.find((t) => t.name === 'echo')?.inputSchema).toMatchObject({
      properties: { text: { type: 'string' } },
    });
    expect(catalog.prompts.map((p) => p.name)).toContain('greet');
    expect(catalog.resources.map((r) => r.uri)).toContain('fixture://hello');
    const read = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'resources/read',
      params: { uri: 'fixture://hello' },
      kind: 'compose',
    });
    expect(read.response).toMatchObject({ result: { contents: [{ text: 'hello resource' }] } });

    await call(api, 'proxies.stop', { id: proxy.id });
    expect(
      await failure(
        call(api, 'exchange.send', {
          proxyId: proxy.id,
          method: 'tools/call',
          params: { name: 'echo' },
          kind: 'compose',
        }),
      ),
    ).toMatch(/not running/);
    expect(
      await failure(call(api, 'exchange.send', { proxyId: proxy.id, method: 'initialize', kind: 'compose' })),
    ).toMatch(/not initialize/);
    // started again (maybe on another port): a new app session
    await call(api, 'proxies.start', { id: proxy.id });
    const after = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'back' } },
      kind: 'compose',
    });
    expect(after.response).toMatchObject({ result: { content: [{ text: 'echo: back' }] } });
  });

  it('checks values against a JSON Schema with ajv, naming each problem by path', async () => {
    const { api } = await app();
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'number' },
        o: { type: 'object', properties: { x: { enum: ['a', 'b'] } }, required: ['x'] },
      },
      required: ['a'],
    };
    expect((await call(api, 'schema.check', { schema, value: { a: 1, o: { x: 'a' } } })).problems).toEqual([]);
    expect((await call(api, 'schema.check', { schema, value: { a: 'one', o: {} } })).problems).toEqual([
      { path: 'a', message: 'must be number' },
      { path: 'o.x', message: 'required' },
    ]);
  });

  it('says a refused email once, in words (zod 4 gives both a format and the pattern that spells it)', async () => {
    const { api } = await app();
    const { z } = await import('zod');
    const schema = z.toJSONSchema(z.object({ email: z.email(), code: z.string().regex(/^[A-Z]{3}$/) }));
    const value = { email: 'not an email', code: 'abc' };
    expect((await call(api, 'schema.check', { schema, value })).problems).toEqual([
      { path: 'email', message: 'must match format "email"' },
      { path: 'code', message: 'must match ^[A-Z]{3}$' },
    ]);
  });
});

describe('api: pins and notes, the timeline numbering, across restarts', () => {
  it('pins an exchange with a note; Clear keeps it; a restarted app has it (same number) and numbers on from there', async () => {
    const { api, controller, dataDir, agent, find, server } = await setup();
    await agent.client.callTool({ name: 'echo', arguments: { text: 'keep me' } });
    const kept = await find((e) => e.tool === 'echo');
    const marks = await call(api, 'traffic.annotate', { seq: kept.seq, pinned: true, note: 'the odd one' });
    expect(marks[kept.seq]).toEqual({ pinned: true, note: 'the odd one' });
    expect(await failure(call(api, 'traffic.annotate', { seq: 99_999, pinned: true }))).toMatch(/no exchange #99999/);
    await call(api, 'traffic.clear', {});
    expect((await call(api, 'traffic.snapshot', {})).map((e) => e.seq)).toEqual([kept.seq]);
    await controller.close();

    const again = keep(new AppController({ dataDir }));
    const api2 = createApiHandlers(again, { shell: 'browser', version: 't' });
    const restored = await call(api2, 'traffic.snapshot', {});
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ seq: kept.seq, tool: 'echo', request: kept.request, response: kept.response });
    expect(await call(api2, 'traffic.annotations', {})).toEqual({ [kept.seq]: { pinned: true, note: 'the odd one' } });
    // new exchanges number on past every number the timeline gave before
    const watch = await call(api2, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    await (await client(watch.url as string)).client.callTool({ name: 'echo', arguments: { text: 'later' } });
    await expect.poll(async () => (await call(api2, 'traffic.snapshot', {})).length).toBeGreaterThan(2);
    for (const e of (await call(api2, 'traffic.snapshot', {})).slice(1)) expect(e.seq).toBeGreaterThan(kept.seq);
    // unpinned and without a note: forgotten
    await call(api2, 'traffic.annotate', { seq: kept.seq, pinned: false, note: '' });
    expect(await call(api2, 'traffic.annotations', {})).toEqual({});
  });
});

describe('api: save the timeline, open it again', () => {
  it('saves HAR, a cassette folder and a single file; each opens into the timeline as a read-only source', async () => {
    const { api, agent, find, proxy } = await setup();
    await agent.client.callTool({ name: 'echo', arguments: { text: 'saved' } });
    await agent.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
    const echo = await find((e) => e.tool === 'echo');
    const progress = await find((e) => e.tool === 'progress');
    const dir = await tempDir();

    const har = await call(api, 'traffic.save', { format: 'har', out: `${dir}/t.har` });
    expect(har.exchanges).toBe((await call(api, 'traffic.snapshot', {})).length); // initialize, echo, progress
    expect(har.redacted).toBeGreaterThan(0); // session ids
    const sessionId = (await find((e) => e.tool === 'echo')).sessionId as string;
    expect(await readFile(har.out, 'utf8')).not.toContain(sessionId);
    const folder = await call(api, 'traffic.save', {
      format: 'folder',
      out: `${dir}/cassette`,
      seqs: [echo.seq, progress.seq],
    });
    expect(folder.exchanges).toBe(2);
    const file = await call(api, 'traffic.save', { format: 'file', out: `${dir}/c.json` });
    expect(await failure(call(api, 'traffic.save', { format: 'file', out: `${dir}/c.json` }))).toMatch(
      /exists; set overwrite/,
    );

    const sources: string[] = [];
    for (const path of [har.out, folder.out, file.out]) {
      const source = await call(api, 'sources.open', { path });
      sources.push(source.id);
      const events = (await call(api, 'traffic.snapshot', {})).filter((e) => e.proxyId === source.id);
      expect(events.length).toBe(source.exchanges);
      const e = events.find((x) => x.tool === 'echo') as TrafficEvent;
      expect(e.request.params).toMatchObject({ name: 'echo', arguments: { text: 'saved' } });
      expect(e.response).toMatchObject({ result: { content: [{ text: 'echo: saved' }] } });
      const p = events.find((x) => x.tool === 'progress') as TrafficEvent;
      expect(p.stream.filter((m) => 'method' in m && m.method === 'notifications/progress')).toHaveLength(2);
    }
    expect(await failure(call(api, 'sources.open', { path: har.out }))).toMatch(/open already/);
    expect(
      await failure(call(api, 'exchange.send', { proxyId: sources[0], method: 'tools/call', kind: 'resend' })),
    ).toMatch(/opened file cannot answer/);
    // an exchange of a file resent to a running proxy
    const fromFile = (await call(api, 'traffic.snapshot', {})).find(
      (e) => e.proxyId === sources[0] && e.tool === 'echo',
    ) as TrafficEvent;
    const resent = await call(api, 'exchange.send', {
      proxyId: proxy.id,
      method: 'tools/call',
      params: fromFile.request.params,
      kind: 'resend',
      from: fromFile.seq,
    });
    expect(resent.response).toMatchObject({ result: { content: [{ text: 'echo: saved' }] } });

    await call(api, 'sources.close', { id: sources[0] });
    expect((await call(api, 'traffic.snapshot', {})).some((e) => e.proxyId === sources[0])).toBe(false);
    expect((await call(api, 'sources.list', {})).map((s) => s.id)).toEqual(sources.slice(1));
    expect(await failure(call(api, 'sources.open', { path: `${dir}/nope.har` }))).toMatch(/no such file or folder/);
  });

  it('a saved cassette folder replays what the timeline showed', async () => {
    const { api, agent, find } = await setup();
    await agent.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    const add = await find((e) => e.tool === 'add');
    const out = `${await tempDir()}/saved`;
    await call(api, 'traffic.save', { format: 'folder', out, seqs: [add.seq] });
    const replay = await call(api, 'proxies.create', { name: 'rep', mode: 'replay', cacheDir: out });
    expect(replay.state).toBe('running');
    const c = await client(replay.url as string);
    expect(await c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
      structuredContent: { sum: 5 },
    });
    const looked = await call(api, 'cassettes.lookup', { proxyId: replay.id, key: add.key });
    expect(looked.entries).toHaveLength(1);
    expect(looked.entries[0].result).toMatchObject({ structuredContent: { sum: 5 } });
  });
});
