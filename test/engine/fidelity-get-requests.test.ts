/**
 * Server→client requests sent outside any request, on the GET stream (issue 21 items 5, 6): server-everything asks
 * `roots/list` 350 ms after the client connects, and its `get-roots-list` tool asks it again when it has none. Record
 * keeps that request (filed after the exchange it followed), replay asks it again on the client's GET stream with the
 * server stopped, and hybrid — a session the cassette initialized, whose upstream session a miss opens later — delivers
 * the upstream's request to the client instead of letting the call hang. Straight at the server, through record,
 * through replay and hybrid, with real TypeScript SDK v1 and v2 clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startEverything } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { outcome, threeWays } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

interface Seen {
  /** how many roots/list requests the client was asked */
  asked: number;
  /** the logging notifications it got (server-everything says how many roots it received) */
  logs: string[];
  tool: unknown;
}

/** An SDK client declaring roots: connects, waits for the server's roots/list, then calls get-roots-list. */
async function rootsScenario(url: string, sdk: 'v1' | 'v2', waitForAsk = true): Promise<Seen> {
  const seen: Seen = { asked: 0, logs: [], tool: undefined };
  const info = { name: 'roots-client', version: '1.0.0' };
  const options = { capabilities: { roots: { listChanged: true } } };
  const client = sdk === 'v1' ? new Client(info, options) : new V2Client(info, options);
  const onRoots = (): { roots: typeof ROOTS } => {
    seen.asked++;
    return { roots: ROOTS };
  };
  const onLog = (n: { params: { data?: unknown } }): void => void seen.logs.push(String(n.params.data));
  if (client instanceof Client) {
    client.setRequestHandler(ListRootsRequestSchema, onRoots);
    client.fallbackNotificationHandler = async (n) => onLog(n as { params: { data?: unknown } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  } else {
    client.setRequestHandler('roots/list', onRoots);
    client.fallbackNotificationHandler = async (n) => onLog(n as { params: { data?: unknown } });
    await client.connect(new V2Transport(new URL(url)));
  }
  try {
    const deadline = Date.now() + 3000;
    while (waitForAsk && seen.asked === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const call = (client as Client).callTool({ name: 'get-roots-list', arguments: {} }, undefined, { timeout: 5000 });
    seen.tool = await outcome(call);
    await new Promise((r) => setTimeout(r, 100)); // the log that follows the roots
    return seen;
  } finally {
    await client.close();
  }
}

for (const sdk of ['v1', 'v2'] as const) {
  it(`server-everything, SDK ${sdk}: the roots/list asked on the GET stream after connect is recorded and asked again in replay`, async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startEverything('streamableHttp'),
      (url) => rootsScenario(url, sdk),
    );
    expect(direct.asked).toBe(1);
    expect(direct.tool).toMatchObject({ ok: { content: [{ text: expect.stringContaining('file:///work/project') }] } });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  }, 60_000);
}

it('hybrid: a session the cassette initialized gets the roots/list its late upstream session asks on the GET stream', async () => {
  const everything = await startEverything('streamableHttp');
  const cacheDir = await tempDir();
  try {
    const direct = await rootsScenario(everything.url, 'v1');
    // the cassette holds initialize (and tools/list) only: get-roots-list misses, so hybrid opens an upstream session
    const recorder = await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir });
    const c = new Client(
      { name: 'roots-client', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    c.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
    await c.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
    await c.listTools();
    await c.close();
    await recorder.flush();
    await recorder.close();
    const hybrid = await startProxy({ mode: 'hybrid', upstreamUrl: everything.url, cacheDir });
    try {
      // the cassette's own roots/list (after initialize) and the late session's come to this client
      const mixed = await rootsScenario(hybrid.url, 'v1', false);
      expect(mixed.tool).toEqual(direct.tool);
      expect(mixed.asked).toBeGreaterThanOrEqual(1);
    } finally {
      await hybrid.close();
    }
  } finally {
    await everything.close();
  }
}, 60_000);
