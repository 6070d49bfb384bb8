/**
 * The stdio bridge reached in process (issue 21 item 3b): the pipeline hands a request to `bridge.dispatch` and reads
 * the answer as it reads an answer over HTTP — here with server-everything over stdio, the real server behind.
 * Ids and progress tokens come back as sent, the server's messages arrive in order before the answer, a server→client
 * request with no request in flight waits for the GET stream, and the SDK server transport's refusals are kept.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { collectMessages } from '../../src/main/engine/http/response-tap.js';
import { startUpstreamBridge, type UpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { everythingEntry } from '../fixtures/everything.js';

let bridge: UpstreamBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function started(): Promise<UpstreamBridge> {
  bridge = await startUpstreamBridge(
    { kind: 'stdio', command: process.execPath, args: [everythingEntry(), 'stdio'] },
    () => {},
  );
  return bridge;
}

const post = (b: UpstreamBridge, body: unknown, headers: Record<string, string> = {}): Promise<IncomingMessage> =>
  b.dispatch({ method: 'POST', headers: { ...JSON_AND_SSE, ...headers }, body: Buffer.from(JSON.stringify(body)) });

/** The first SSE event of a stream that stays open (the GET stream) that `wanted` picks. */
function eventOf(res: IncomingMessage, wanted: (message: { method?: string }) => boolean): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    res.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (const [, data] of text.matchAll(/^data: (.*)$/gm)) {
        const message = JSON.parse(data) as { method?: string };
        if (wanted(message)) resolve(message);
      }
    });
  });
}

async function initialized(b: UpstreamBridge): Promise<{ sessionId: string; init: unknown[] }> {
  const res = await post(b, {
    jsonrpc: '2.0',
    id: 'init-α',
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: { roots: {} },
      clientInfo: { name: 'dispatch', version: '1' },
    },
  });
  expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'text/event-stream']);
  const sessionId = res.headers['mcp-session-id'] as string;
  const init = await collectMessages(res);
  const ack = await post(b, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
  expect(ack.statusCode).toBe(202);
  ack.resume();
  return { sessionId, init };
}

describe('the stdio bridge in process (bridge.dispatch)', () => {
  it("answers with the ids and tokens it was given, the server's messages in order before the answer", async () => {
    const b = await started();
    const { sessionId, init } = await initialized(b);
    expect(init).toMatchObject([
      { jsonrpc: '2.0', id: 'init-α', result: { serverInfo: { name: expect.any(String) } } },
    ]);
    const call = await post(
      b,
      {
        jsonrpc: '2.0',
        id: 'call-7',
        method: 'tools/call',
        params: {
          name: 'trigger-long-running-operation',
          arguments: { duration: 0.3, steps: 3 },
          _meta: { progressToken: 'tok-β' },
        },
      },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    );
    const messages = (await collectMessages(call)) as Array<{
      id?: unknown;
      method?: string;
      params?: { progressToken?: unknown; progress?: number };
    }>;
    expect(
      messages.map((m) =>
        m.method ? `${m.method} ${String(m.params?.progressToken)} ${m.params?.progress}` : `answer ${String(m.id)}`,
      ),
    ).toEqual([
      'notifications/progress tok-β 1',
      'notifications/progress tok-β 2',
      'notifications/progress tok-β 3',
      'answer call-7',
    ]);
    expect(b.pids()).toHaveLength(1);
  });

  it('holds a server→client request sent with no request in flight until the GET stream opens (issue 21 item 2)', async () => {
    const b = await started();
    const { sessionId } = await initialized(b);
    await new Promise((resolve) => setTimeout(resolve, 800)); // server-everything asks roots/list 350 ms after initialize
    const stream = await b.dispatch({
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(stream.statusCode).toBe(200);
    const asked = (await eventOf(stream, (m) => m.method === 'roots/list')) as { id: unknown; method: string };
    expect(asked.method).toBe('roots/list');
    const reply = await post(
      b,
      { jsonrpc: '2.0', id: asked.id, result: { roots: [] } },
      { 'mcp-session-id': sessionId },
    );
    expect(reply.statusCode).toBe(202); // the server's own id, back to the server untouched
    reply.resume();
    stream.destroy();
  });

  it("refuses as the SDK's server transport does, and a deleted session is gone", async () => {
    const b = await started();
    const status = async (res: Promise<IncomingMessage>): Promise<[number, unknown]> => {
      const r = await res;
      const body = (await collectMessages(r).catch(() => [])) as Array<{ error?: { code: number } }>;
      return [r.statusCode ?? 0, body[0]?.error?.code];
    };
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(await status(post(b, ping, { 'mcp-session-id': 'no-such-session' }))).toEqual([404, -32001]);
    expect(await status(post(b, ping))).toEqual([400, -32000]); // no session: only an initialize opens one
    expect(b.pids()).toEqual([]); // and nothing was spawned for those
    const { sessionId } = await initialized(b);
    const inSession = { 'mcp-session-id': sessionId };
    expect(await status(post(b, ping, { ...inSession, accept: 'application/json' }))).toEqual([406, -32000]);
    expect(await status(post(b, ping, { ...inSession, 'content-type': 'text/plain' }))).toEqual([415, -32000]);
    expect(await status(post(b, ping, { ...inSession, 'mcp-protocol-version': '1999-01-01' }))).toEqual([400, -32000]);
    const broken = await b.dispatch({
      method: 'POST',
      headers: { ...JSON_AND_SSE, ...inSession },
      body: Buffer.from('{"jsonrpc"'),
    });
    expect(broken.statusCode).toBe(400);
    broken.resume();
    const again = {
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    expect(await status(post(b, again, inSession))).toEqual([400, -32600]);
    const ended = await b.dispatch({ method: 'DELETE', headers: inSession });
    expect(ended.statusCode).toBe(200);
    ended.resume();
    expect(await status(post(b, ping, inSession))).toEqual([404, -32001]);
  });
});
