/**
 * Replay fidelity at the session and transport level (2025 revisions): resumed streams (SSE polling: the server closes
 * the POST stream early, the client resumes with Last-Event-ID), session 404s (unknown and ended sessions; what the SDK
 * clients do on a 404), version negotiation and the MCP-Protocol-Version header, servers without sessions — the same
 * three ways: straight at the server, through record, through replay with the server stopped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SdkHttpError } from '@modelcontextprotocol/client';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { removeTempDirs } from '../helpers/temp.js';
import { outcome, rawPost, threeWays, withoutSession, type Upstream } from '../helpers/three-ways.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

afterEach(removeTempDirs);

const INIT = (version: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A fetch that notes what the client sent: POSTs by method, and whether a GET resumed a stream (Last-Event-ID). */
function wireLog(): { fetch: typeof fetch; log: string[] } {
  const log: string[] = [];
  const logged: typeof fetch = async (url, init) => {
    const headers = new Headers(init?.headers);
    const res = await fetch(url, init);
    const method = init?.method ?? 'GET';
    if (method === 'POST')
      log.push(
        `POST ${(JSON.parse(String(init?.body)) as { method?: string }).method ?? 'reply'} → ${res.status} ${res.headers.get('content-type') ?? ''}`,
      );
    else if (headers.has('last-event-id'))
      log.push(`GET resume → ${res.status} ${res.headers.get('content-type') ?? ''}`);
    return res;
  };
  return { fetch: logged, log };
}

describe('a stream the server closes early (SSE polling) and the client resumes', () => {
  it('the answer arrives on the resumed stream, the same three ways, and the client resumes in replay too', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startSdkServer({ resumable: { retryMs: 40 } }),
      async (url) => {
        const wire = wireLog();
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const client = new Client({ name: 'poller', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
        try {
          const progress: number[] = [];
          const result = await client.callTool({ name: 'poll', arguments: { steps: 3 } }, undefined, {
            onprogress: (p) => progress.push(p.progress),
          });
          return { result, progress, wire: wire.log.filter((l) => !l.startsWith('POST notifications')) };
        } finally {
          await client.close();
        }
      },
    );
    expect(direct.result).toEqual({ content: [{ type: 'text', text: 'polled 3' }] });
    expect(direct.wire).toContain('GET resume → 200 text/event-stream');
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('sessions', () => {
  for (const server of [
    { name: 'SDK v1', start: () => startSdkServer() },
    { name: 'SDK v2 (stateful 2025 leg)', start: () => startV2Server({ legacy: 'stateful' }) },
  ]) {
    it(`ended and unknown sessions get 404, the same three ways (${server.name})`, async () => {
      const { direct, recorded, replayed } = await threeWays(server.start, async (url) => {
        const init = await rawPost(url, INIT('2025-11-25'));
        const h = { 'mcp-session-id': init.sessionId as string, 'mcp-protocol-version': '2025-11-25' };
        const live = withoutSession(await rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, h));
        const ended = await fetch(url, { method: 'DELETE', headers: h });
        const afterDelete = withoutSession(await rawPost(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, h));
        const unknown = withoutSession(
          await rawPost(
            url,
            { jsonrpc: '2.0', id: 4, method: 'tools/list' },
            { ...h, 'mcp-session-id': 'no-such-session' },
          ),
        );
        return { live: live.status, deleted: ended.status, afterDelete, unknown };
      });
      expect(direct.afterDelete.status).toBe(404);
      expect(direct.unknown.status).toBe(404);
      expect(recorded).toEqual(direct);
      expect(replayed).toEqual(direct);
    });
  }

  it('on a 404 the SDK clients (v1 1.32 and v2 2.4) do not re-initialize: the call fails with HTTP 404, a new connection works — the same three ways', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startSdkServer(),
      async (url) => {
        const v1 = await connectClient(url, { terminateOnClose: false });
        const v2 = await connectV2Client(url);
        // the server forgets both sessions (as after a restart, or a session ended elsewhere)
        for (const id of [v1.sessionId(), v2.transport.sessionId])
          await fetch(url, {
            method: 'DELETE',
            headers: { 'mcp-session-id': id as string, 'mcp-protocol-version': '2025-11-25' },
          });
        const v1Call = await outcome(v1.client.listTools());
        const v2Call = await outcome(v2.client.listTools());
        const v1Error = v1Call as { error?: unknown };
        const fresh = await connectClient(url);
        const again = await outcome(fresh.client.callTool({ name: 'echo', arguments: { text: 'again' } }));
        const sameSession = v1.sessionId() !== undefined;
        await Promise.all([v1.close(), v2.close(), fresh.close()]);
        return {
          v1: v1Error.error ? (v1Error.error as { code?: unknown }).code : 'no error',
          v2: 'error' in v2Call ? 'error' : 'no error',
          again,
          sameSession,
        };
      },
    );
    expect(direct.v1).toBe(404); // StreamableHTTPError carries the HTTP status as its code: no re-initialize happened
    expect(direct.v2).toBe('error');
    expect(direct.again).toEqual({ ok: { content: [{ type: 'text', text: 'echo: again' }] } });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
    // the error classes the two SDKs use for it
    expect(StreamableHTTPError.name).toBe('StreamableHTTPError');
    expect(SdkHttpError.name).toBe('SdkHttpError');
  });

  it('a server without sessions issues no Mcp-Session-Id in replay either', async () => {
    const { direct, replayed } = await threeWays(
      () => startSdkServer({ stateless: true }),
      async (url) => {
        const init = await rawPost(url, INIT('2025-11-25'));
        return { sessionId: init.sessionId !== undefined, status: init.status };
      },
    );
    expect(direct.sessionId).toBe(false);
    expect(replayed).toEqual(direct);
  });
});

describe('protocol versions (2025 revisions)', () => {
  it('initialize negotiates against the versions the cassette holds; an unsupported MCP-Protocol-Version header gets 400', async () => {
    const { direct, recorded, replayed, recordEvents, replayEvents } = await threeWays(
      () => startSdkServer(),
      async (url) => {
        const older = await rawPost(url, INIT('2025-06-18'));
        const newer = await rawPost(url, INIT('2025-11-25'));
        const unknown = await rawPost(url, INIT('1999-01-01'));
        const h = { 'mcp-session-id': newer.sessionId as string };
        const badHeader = await rawPost(
          url,
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { ...h, 'mcp-protocol-version': 'garbage' },
        );
        const goodHeader = await rawPost(
          url,
          { jsonrpc: '2.0', id: 3, method: 'tools/list' },
          { ...h, 'mcp-protocol-version': '2025-11-25' },
        );
        const version = (a: { messages: unknown[] }) =>
          (a.messages[0] as { result?: { protocolVersion?: string } }).result?.protocolVersion;
        return {
          older: version(older),
          newer: version(newer),
          unknown: version(unknown),
          badHeader: withoutSession(badHeader),
          goodHeader: goodHeader.status,
        };
      },
    );
    expect(direct).toMatchObject({ older: '2025-06-18', newer: '2025-11-25', unknown: '2025-11-25', goodHeader: 200 });
    expect(direct.badHeader.status).toBe(400);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
    // the timeline says which revision each exchange was made in
    for (const events of [recordEvents, replayEvents]) {
      const inits = events.filter((e) => e.method === 'initialize').sort((a, b) => a.seq - b.seq);
      expect(inits.map((e) => e.protocolVersion)).toEqual(['2025-06-18', '2025-11-25', '2025-11-25']);
      expect(events.find((e) => e.method === 'tools/list')?.protocolVersion).toBe('2025-11-25');
    }
  });
});

describe('a stream the client drops and resumes (Last-Event-ID)', () => {
  /** A tool that sends a progress notification, works 300 ms, sends another, then answers; the server keeps events. */
  function startDroppable(): Promise<Upstream> {
    return startCustomUpstream(
      () => {
        const server = new Server({ name: 'droppable', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: 'work', inputSchema: { type: 'object' } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
          const token = request.params._meta?.progressToken as string | number;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2 },
          });
          await new Promise((resolve) => setTimeout(resolve, 300));
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 2, total: 2 },
          });
          return { content: [{ type: 'text', text: 'worked' }] };
        });
        return server;
      },
      { eventStore: new InMemoryEventStore() },
    );
  }

  it('what followed the last event it saw arrives on the resumed stream, the same three ways (and is recorded)', async () => {
    const { direct, recorded, replayed } = await threeWays(startDroppable, async (url) => {
      const init = await rawPost(url, INIT('2025-11-25'));
      const h = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': init.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      };
      // read the POST's stream up to its first message with an event id, then drop it
      const abort = new AbortController();
      const res = await fetch(url, {
        method: 'POST',
        headers: h,
        signal: abort.signal,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'work', arguments: {}, _meta: { progressToken: 'p' } },
        }),
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      let lastId: string | undefined;
      while (lastId === undefined) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        const event = /id: (\S+)\ndata: \{/.exec(text.replace(/event: message\n/g, ''));
        if (event) lastId = event[1];
      }
      abort.abort();
      await reader.cancel().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 200)); // a client waits before it resumes (the server's retry)
      const resumed = await fetch(url, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': h['mcp-session-id'],
          'mcp-protocol-version': '2025-11-25',
          'last-event-id': lastId as string,
        },
      });
      const rest = (await resumed.text())
        .split('\n\n')
        .map((e) => /data: (\{.*\})/.exec(e)?.[1])
        .filter((d): d is string => d !== undefined)
        .map((d) => JSON.parse(d) as Record<string, unknown>)
        // the SDK's event store may redeliver a priming event it stored as `{}` (a race inside the server): no message
        .filter((m) => Object.keys(m).length > 0);
      return {
        first: /data: (\{.*\})/.exec(text)?.[1] && JSON.parse(/data: (\{.*\})/.exec(text)![1]),
        resumedStatus: resumed.status,
        rest,
      };
    });
    expect(direct.rest).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'worked' }] } },
    ]);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});
