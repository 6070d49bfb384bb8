/**
 * Replay fidelity, 2025 revisions: the same client scenario run straight at a real server, through record, and through
 * replay with the server stopped gives the same results — successes and JSON-RPC errors (code, message, data), the
 * streamed messages in order, the framing of the answers, unknown methods and invalid ids refused as the server did.
 * Real peers: the TypeScript SDK v1 (server fixture, Client) and v2 (@modelcontextprotocol/server's stateful and
 * stateless 2025 legs, @modelcontextprotocol/client) over loopback HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { distilledFiles, removeTempDirs } from '../helpers/temp.js';
import { outcome, rawPost, threeWays, withoutSession, type Upstream } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const SERVERS: Array<{ name: string; start: () => Promise<Upstream> }> = [
  { name: 'SDK v1, stateful, SSE', start: () => startSdkServer() },
  { name: 'SDK v1, stateful, JSON', start: () => startSdkServer({ json: true }) },
  { name: 'SDK v1, stateless, SSE', start: () => startSdkServer({ stateless: true }) },
  { name: 'SDK v2, stateful (2025 leg)', start: () => startV2Server({ legacy: 'stateful' }) },
  { name: 'SDK v2, stateless (2025 leg)', start: () => startV2Server({ legacy: 'stateless' }) },
];

describe.each(SERVERS)('every answer, recorded and replayed: $name', ({ start }) => {
  it('results and JSON-RPC errors come back identical (v1 Client)', async () => {
    const { direct, recorded, replayed, cacheDir } = await threeWays(start, async (url) => {
      const c = await connectClient(url);
      try {
        return [
          await outcome(c.client.callTool({ name: 'echo', arguments: { text: 'hi' } })),
          await outcome(c.client.callTool({ name: 'fail', arguments: {} })),
          await outcome(c.client.callTool({ name: 'no-such-tool', arguments: {} })),
          await outcome(c.client.callTool({ name: 'echo', arguments: { text: 42 } })), // invalid arguments
          await outcome(c.client.readResource({ uri: 'fixture://nope' })),
          await outcome(c.client.getPrompt({ name: 'no-such-prompt', arguments: {} })),
          await outcome(c.client.setLoggingLevel('debug')),
          await outcome(
            c.client.request({ method: 'no/such/method', params: {} }, (await import('zod')).z.object({}).loose()),
          ),
        ];
      } finally {
        await c.close();
      }
    });
    expect(direct.some((o) => 'error' in o)).toBe(true);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
    // the cassette documents the errors: an `error` with the server's code and message, no result
    const files = await distilledFiles(cacheDir);
    const resource = JSON.parse(
      await readFile(join(cacheDir, files.find((f) => f.includes('resources_read_')) as string), 'utf8'),
    );
    expect(resource.result).toBeUndefined();
    expect(typeof resource.error.code).toBe('number');
  });

  it('results and errors come back identical (v2 Client, 2025 handshake)', async () => {
    const { direct, recorded, replayed } = await threeWays(start, async (url) => {
      const c = await connectV2Client(url);
      try {
        return [
          await outcome(c.client.callTool({ name: 'echo', arguments: { text: 'v2' } })),
          await outcome(c.client.callTool({ name: 'no-such-tool', arguments: {} })),
          await outcome(c.client.readResource({ uri: 'fixture://nope' })),
          await outcome(c.client.readResource({ uri: 'fixture://hello' })),
        ];
      } finally {
        await c.close();
      }
    });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });

  it('raw answers keep their status, framing and messages; unknown methods and invalid ids are refused as the server did', async () => {
    const { direct, recorded, replayed } = await threeWays(start, async (url) => {
      const init = await rawPost(url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const session: Record<string, string> = init.sessionId ? { 'mcp-session-id': init.sessionId } : {};
      const h = { ...session, 'mcp-protocol-version': '2025-11-25' };
      await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
      return [
        withoutSession(init),
        withoutSession(
          await rawPost(
            url,
            { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'raw' } } },
            h,
          ),
        ),
        withoutSession(await rawPost(url, { jsonrpc: '2.0', id: 3, method: 'no/such/method', params: {} }, h)),
        withoutSession(await rawPost(url, { jsonrpc: '2.0', id: null, method: 'tools/list' }, h)),
        withoutSession(await rawPost(url, { jsonrpc: '2.0', id: { not: 'an id' }, method: 'tools/list' }, h)),
      ];
    });
    expect(direct[1].status).toBe(200);
    expect(direct[3].status).toBe(400);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('streamed messages', () => {
  it('progress and logging arrive in order, with the answer, the same three ways (SSE server)', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startSdkServer(),
      async (url) => {
        const c = await connectClient(url);
        try {
          const progress: unknown[] = [];
          const result = await c.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
            onprogress: (p) => progress.push(p),
          });
          return { result, progress, notifications: c.notifications.map((n) => n.method) };
        } finally {
          await c.close();
        }
      },
    );
    expect(direct.progress).toHaveLength(3);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });

  it('a JSON server drops the stream: replay answers in JSON too', async () => {
    const { direct, replayed } = await threeWays(
      () => startSdkServer({ json: true }),
      async (url) => {
        const init = await rawPost(url, {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        });
        const h: Record<string, string> = {
          'mcp-session-id': init.sessionId as string,
          'mcp-protocol-version': '2025-11-25',
        };
        const call = await rawPost(
          url,
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 7 } },
          },
          h,
        );
        return [withoutSession(init), withoutSession(call)];
      },
    );
    expect(direct[1].type).toBe('application/json');
    expect(replayed).toEqual(direct);
  });
});
