/**
 * Byte fidelity of replayed answers (issue 21 item 10): the JSON-RPC answer's members in the order the server wrote
 * them (the TypeScript SDK servers write `result, jsonrpc, id`), and the framing of the answers mcp-rewind's bare form
 * keeps none of (initialize, tools/list: SSE with or without event ids and priming, as the server's other answers).
 * Raw HTTP clients, so what is compared is the text on the wire: straight at server-everything and the v2 SDK fixture,
 * through record, through replay with the server stopped. And the Python SDK's server (where its venv exists), which
 * writes `jsonrpc, id, result` and ends its SSE lines with CRLF: replay keeps its member order, but writes LF line ends
 * (any SSE parser reads both; the line ends are not recorded), so the comparison reads CRLF as LF.
 */
import { afterEach, expect, it } from 'vitest';
import { startEverything } from '../fixtures/everything.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { pythonSdkMissing, startPythonServer } from '../helpers/python-sdk.js';
import { removeTempDirs } from '../helpers/temp.js';
import { threeWays, type Upstream } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The body as the client read it: the data lines' text, and the shape of the SSE framing (ids, priming, retry). */
async function wire(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...ACCEPT, ...headers }, body: JSON.stringify(body) });
  const text = (await res.text()).replace(/\r\n/g, '\n');
  const type = (res.headers.get('content-type') ?? '').split(';')[0];
  if (type !== 'text/event-stream') return { type, data: [text], ids: false, priming: false, session: undefined };
  const events = text.split(/\n\n/).filter((e) => e.trim());
  return {
    type,
    data: events.flatMap((e) => e.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6)),
    ids: events.some((e) => /^id: /m.test(e)),
    priming: events.some((e) => /^id: /m.test(e) && !/^data: ./m.test(e)),
    session: res.headers.get('mcp-session-id') ?? undefined,
  };
}

async function session(url: string) {
  const init = await wire(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const headers = { 'mcp-session-id': init.session ?? '', 'mcp-protocol-version': '2025-11-25' };
  await fetch(url, {
    method: 'POST',
    headers: { ...ACCEPT, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  const list = await wire(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
  const call = await wire(
    url,
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi', text: 'hi' } } },
    headers,
  );
  const strip = ({ session: _s, ...rest }: Awaited<ReturnType<typeof wire>>) => rest;
  return { init: strip(init), list: strip(list), call: strip(call) };
}

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK server's bytes: ${missing}`);

const SERVERS: [string, () => Promise<Upstream>, boolean?][] = [
  ['server-everything', () => startEverything('streamableHttp')],
  ['the v2 SDK fixture', () => startV2Server({ legacy: 'stateful' })],
  ['the Python SDK server', () => startPythonServer(), missing !== undefined],
];

for (const [name, start, skip] of SERVERS) {
  it.skipIf(skip === true)(
    `${name}: replayed answers are the bytes the server wrote (member order, SSE framing of bare entries)`,
    async () => {
      const { direct, recorded, replayed } = await threeWays(start, session);
      if (!name.includes('Python')) expect(direct.call.data[0]).toMatch(/^data: \{"result":/); // the TS SDK servers write result first
      expect(recorded).toEqual(direct);
      expect(replayed).toEqual(direct);
    },
    60_000,
  );
}

/** The SSE event ids a raw POST's answer carried, in order (a priming event's included). */
async function eventIds(url: string, body: unknown, headers: Record<string, string>): Promise<string[]> {
  const res = await fetch(url, { method: 'POST', headers: { ...ACCEPT, ...headers }, body: JSON.stringify(body) });
  return [...(await res.text()).matchAll(/^id: (.*)$/gm)].map((m) => m[1]);
}

it('server-everything: replay sends the event ids the server sent; a second play in the session gets ids of its own', async () => {
  const scenario = async (url: string) => {
    const init = await fetch(url, {
      method: 'POST',
      headers: ACCEPT,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    await init.text();
    const headers = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'ids' } },
    });
    return { first: await eventIds(url, call(2), headers), again: await eventIds(url, call(3), headers) };
  };
  const { direct, recorded, replayed } = await threeWays(() => startEverything('streamableHttp'), scenario);
  expect(direct.first.length).toBeGreaterThan(0); // the server's event store gives each event an id
  expect(recorded.first).not.toEqual(direct.first); // ids of another server session: what replay sends is the recording's
  expect(replayed.first).toEqual(recorded.first);
  // the same answer again is recorded once; played a second time in the session, it gets ids of its own, so a
  // Last-Event-ID still names one event
  expect(replayed.again.length).toBe(recorded.again.length);
  expect(new Set([...replayed.first, ...replayed.again]).size).toBe(replayed.first.length + replayed.again.length);
}, 60_000);
