/**
 * Replay fidelity for the 2026-07-28 revision (no initialize: protocol fields in each request's `_meta`,
 * `server/discover`, input_required multi-round results, `subscriptions/listen`, the -32020/-32021/-32022 errors,
 * 404 + -32601 for methods it removed) and for both revisions in one cassette — direct, through record, and through
 * replay with the server stopped. Real peers: @modelcontextprotocol/server and @modelcontextprotocol/client 2.4.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startV2Server, type V2ServerHandle } from '../fixtures/v2-server.js';
import { distilledFiles, removeTempDirs } from '../helpers/temp.js';
import { outcome, rawPost, threeWays } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const MODERN = '2026-07-28';
const meta = (version = MODERN, capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});
const headers = (method: string, name?: string, version = MODERN): Record<string, string> => ({
  'mcp-protocol-version': version,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each([
  { name: 'answers as it chooses (JSON unless it streams)', options: {} },
  { name: 'always SSE', options: { responseMode: 'sse' as const } },
  { name: 'always JSON', options: { responseMode: 'json' as const } },
])('2026-07-28 requests without initialize, server $name', ({ options }) => {
  it('server/discover, results and errors (-32602 with data.uri for a missing resource) come back identical', async () => {
    const { direct, recorded, replayed, cacheDir, recordEvents, replayEvents } = await threeWays(
      () => startV2Server(options),
      async (url) => {
        const c = await connectV2Client(url, { negotiation: 'auto' });
        try {
          const progress: number[] = [];
          return {
            era: c.client.getProtocolEra(),
            server: c.client.getServerVersion(),
            answers: [
              await outcome(c.client.callTool({ name: 'echo', arguments: { text: 'modern' } })),
              await outcome(c.client.callTool({ name: 'fail', arguments: {} })),
              await outcome(c.client.callTool({ name: 'no-such-tool', arguments: {} })),
              await outcome(c.client.readResource({ uri: 'fixture://nope' })),
              await outcome(c.client.readResource({ uri: 'fixture://hello' })),
              await outcome(c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })),
              await outcome(c.client.listTools()),
              await outcome(
                c.client.callTool(
                  { name: 'progress', arguments: { steps: 2 } },
                  { onprogress: (p) => progress.push(p.progress) },
                ),
              ),
            ],
            progress,
          };
        } finally {
          await c.close();
        }
      },
    );
    expect(direct.era).toBe('modern');
    expect(direct.answers[3]).toMatchObject({ error: { code: -32602, data: { uri: 'fixture://nope' } } });
    expect(direct.progress).toEqual(options.responseMode === 'json' ? [] : [1, 2]); // JSON answers drop the stream
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
    // the cassette and the timeline say which revision each exchange was made in
    const echo = JSON.parse(
      await readFile(
        join(cacheDir, (await distilledFiles(cacheDir)).find((f) => f.includes('tools_call_echo_')) as string),
        'utf8',
      ),
    );
    expect(echo.protocolVersion).toBe(MODERN);
    for (const events of [recordEvents, replayEvents])
      expect(events.filter((e) => e.method === 'tools/call').every((e) => e.protocolVersion === MODERN)).toBe(true);
  });
});

describe('input_required (multi-round) calls', () => {
  it('each round is its own entry: two users get their own answers, an unrecorded user misses, tampered state is refused as the server refused it', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startV2Server(),
      async (url, way) => {
        const alice = await connectV2Client(url, {
          negotiation: 'auto',
          elicit: (p) => (p.message.startsWith('Favourite') ? { color: 'green' } : { name: 'Alice' }),
        });
        const bob = await connectV2Client(url, {
          negotiation: 'auto',
          elicit: (p) => (p.message.startsWith('Favourite') ? { color: 'blue' } : { name: 'Bob' }),
        });
        try {
          const answers = [
            await outcome(alice.client.callTool({ name: 'greet', arguments: {} })),
            await outcome(bob.client.callTool({ name: 'greet', arguments: {} })),
            await outcome(alice.client.callTool({ name: 'wizard', arguments: {} })),
            await outcome(bob.client.callTool({ name: 'wizard', arguments: {} })),
          ];
          const asked = [alice.asked, bob.asked];
          // a forged requestState (another one in each run: replay never saw it) is refused with the server's -32602
          const forged = await rawPost(
            url,
            {
              jsonrpc: '2.0',
              id: 9,
              method: 'tools/call',
              params: {
                name: 'wizard',
                arguments: {},
                requestState: `forged-${randomUUID()}`,
                inputResponses: { color: { action: 'accept', content: { color: 'red' } } },
                _meta: meta(MODERN, { elicitation: { form: {} } }),
              },
            },
            headers('tools/call', 'wizard'),
          );
          if (way === 'replay') {
            // a user the recording never saw: a miss, never Alice's or Bob's answer
            const carol = await connectV2Client(url, { negotiation: 'auto', elicit: () => ({ name: 'Carol' }) });
            const miss = await outcome(carol.client.callTool({ name: 'greet', arguments: {} }));
            await carol.close();
            expect(miss).toMatchObject({ error: { code: -32004 } });
            expect(carol.asked).toEqual(['What is your name?']); // the first round still came from the cassette
          }
          return { answers, asked, forged };
        } finally {
          await Promise.all([alice.close(), bob.close()]);
        }
      },
    );
    expect(direct.answers.slice(0, 2)).toEqual([
      { ok: { content: [{ type: 'text', text: 'Hello, Alice!' }], _meta: expect.anything() } },
      { ok: { content: [{ type: 'text', text: 'Hello, Bob!' }], _meta: expect.anything() } },
    ]);
    expect((direct.answers[3] as { ok: { content: Array<{ text: string }> } }).ok.content[0].text).toBe(
      'Bob likes blue',
    );
    expect(direct.forged.messages[0]).toMatchObject({ error: { code: -32602 } });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });

  it('a client that lacks the capability an input request needs gets -32021, the same three ways', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startV2Server(),
      async (url) => {
        const call = (caps: Record<string, unknown>, id: number) =>
          rawPost(
            url,
            {
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: 'needs-sampling', arguments: {}, _meta: meta(MODERN, caps) },
            },
            headers('tools/call', 'needs-sampling'),
          );
        return [await call({}, 1), await call({ sampling: {} }, 2), await call({ elicitation: {} }, 3)];
      },
    );
    expect(direct[0]).toMatchObject({
      status: 400,
      messages: [{ error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } }],
    });
    expect(direct[1].status).toBe(200);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('the revision checks of 2026-07-28', () => {
  it('header/_meta mismatch (-32020), unsupported revision (-32022, data.supported), a malformed envelope (-32602), removed and unknown methods (404 + -32601)', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startV2Server(),
      async (url) => {
        const post = (body: Record<string, unknown>, h: Record<string, string>) =>
          rawPost(url, { jsonrpc: '2.0', ...body }, h);
        return [
          await post({ id: 1, method: 'server/discover', params: { _meta: meta() } }, headers('server/discover')),
          await post(
            { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' }, _meta: meta() } },
            headers('tools/call', 'other'),
          ),
          await post(
            { id: 3, method: 'tools/list', params: { _meta: meta() } },
            headers('tools/list', undefined, '2025-11-25'),
          ),
          await post(
            { id: 4, method: 'tools/list', params: { _meta: meta('2099-01-01') } },
            headers('tools/list', undefined, '2099-01-01'),
          ),
          await post(
            { id: 5, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
            headers('tools/list'),
          ),
          await post({ id: 6, method: 'ping', params: { _meta: meta() } }, headers('ping')),
          await post(
            { id: 7, method: 'logging/setLevel', params: { level: 'debug', _meta: meta() } },
            headers('logging/setLevel'),
          ),
          await post({ id: 8, method: 'vendor/thing', params: { _meta: meta() } }, headers('vendor/thing')),
          await post({ id: null, method: 'tools/list', params: { _meta: meta() } }, headers('tools/list')),
        ];
      },
    );
    expect(direct.map((a) => a.status)).toEqual([200, 400, 400, 400, 400, 404, 404, 404, 400]);
    expect(direct[3].messages[0]).toMatchObject({
      error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } },
    });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('subscriptions/listen', () => {
  it('the stream is recorded and replayed: the acknowledgement, then the change notifications, open until the client closes it', async () => {
    let server: V2ServerHandle | undefined;
    const { direct, recorded, replayed } = await threeWays(
      async () => (server = await startV2Server()),
      async (url, way) => {
        const c = await connectV2Client(url, { negotiation: 'auto' });
        const updated: unknown[] = [];
        c.client.setNotificationHandler('notifications/resources/updated', async (n) => void updated.push(n.params));
        try {
          const sub = await c.client.listen({ resourceSubscriptions: ['fixture://hello'], toolsListChanged: true });
          if (way !== 'replay') server?.notify.resourceUpdated('fixture://hello'); // replay plays the recorded one
          await until(() => updated.length === 1);
          await sub.close();
          return { honored: sub.honoredFilter, updated, closed: await sub.closed };
        } finally {
          await c.close();
        }
      },
    );
    expect(direct.updated).toHaveLength(1);
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});

describe('both revisions in one cassette', () => {
  it('a 2025 client and a 2026 client of one server replay from one cassette, each with the answers of its revision', async () => {
    const { direct, recorded, replayed, cacheDir } = await threeWays(
      () => startV2Server({ legacy: 'stateful' }),
      async (url) => {
        const legacy = await connectV2Client(url);
        const modern = await connectV2Client(url, { negotiation: 'auto' });
        const v1 = await connectClient(url);
        try {
          return {
            eras: [legacy.client.getProtocolEra(), modern.client.getProtocolEra()],
            legacy: await outcome(legacy.client.callTool({ name: 'echo', arguments: { text: 'both' } })),
            modern: await outcome(modern.client.callTool({ name: 'echo', arguments: { text: 'both' } })),
            v1: await outcome(v1.client.callTool({ name: 'echo', arguments: { text: 'both' } })),
            greet: await outcome(legacy.client.callTool({ name: 'greet', arguments: {} })), // the SDK's shim: elicitation pushed over the session
          };
        } finally {
          await Promise.all([legacy.close(), modern.close(), v1.close()]);
        }
      },
    );
    expect(direct.eras).toEqual(['legacy', 'modern']);
    expect(direct.legacy).not.toEqual(direct.modern); // the 2026 answer carries its serverInfo in _meta
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
    const files = (await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_echo_'));
    const versions = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(join(cacheDir, f), 'utf8')).protocolVersion),
    );
    expect(versions.sort()).toEqual(['2025-11-25', MODERN]);
  });

  it('a negotiating 2026 client falls back to initialize against a 2025-only server, in replay as live', async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startSdkServer(),
      async (url) => {
        const c = await connectV2Client(url, { negotiation: 'auto' });
        try {
          return {
            era: c.client.getProtocolEra(),
            echo: await outcome(c.client.callTool({ name: 'echo', arguments: { text: 'fallback' } })),
          };
        } finally {
          await c.close();
        }
      },
    );
    expect(direct.era).toBe('legacy');
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  });
});
