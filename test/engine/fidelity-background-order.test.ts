/**
 * Server messages on the GET stream keep their place among the calls around them (issue 21 item 7). A real SDK v1
 * server's `announce` tool logs on the GET stream while it runs — once, on its first call only — and the client calls
 * `echo`, `announce`, `echo`, `announce`. Live the client gets the log once, after its first `announce` was sent;
 * through record and through replay with the server stopped (SDK v1 and v2 clients) it gets it once too, and not before
 * that call (it used to be filed under the last call answered — `echo` — so replay sent it before `announce`, and again
 * after every repeated `echo`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { removeTempDirs } from '../helpers/temp.js';
import { threeWays } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

/** A server whose `announce` tool logs on the GET stream (no related request) on its first call, then answers. */
function announcer(): Server {
  const server = new Server({ name: 'announcer', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  let announced = false;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ['echo', 'announce'].map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'announce' && !announced) {
      announced = true;
      await server.sendLoggingMessage({ level: 'info', data: 'announced' }); // no related request: the GET stream
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { content: [{ type: 'text' as const, text: `${request.params.name} done` }] };
  });
  return server;
}

/** What the client saw, in order: the calls it made and answers it got, and the logs between them. */
async function scenario(url: string, sdk: 'v1' | 'v2'): Promise<string[]> {
  const seen: string[] = [];
  const info = { name: 'order-client', version: '1.0.0' };
  const client = sdk === 'v1' ? new Client(info) : new V2Client(info);
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/message') seen.push(`log ${String((n.params as { data?: unknown }).data)}`);
  };
  await client.connect(sdk === 'v1' ? new StreamableHTTPClientTransport(new URL(url)) : new V2Transport(new URL(url)));
  try {
    await new Promise((resolve) => setTimeout(resolve, 200)); // the client's GET stream is open
    for (const name of ['echo', 'announce', 'echo', 'announce']) {
      seen.push(`call ${name}`);
      const result = await (client as Client).callTool({ name, arguments: {} });
      seen.push(`answer ${(result.content as { text: string }[])[0].text}`);
      await new Promise((resolve) => setTimeout(resolve, 150)); // what the server sends after the answer arrives
    }
    return seen;
  } finally {
    await client.close();
  }
}

for (const sdk of ['v1', 'v2'] as const) {
  it(`SDK ${sdk}: a GET-stream log sent during a call replays once, after that call was sent`, async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startCustomUpstream(announcer),
      (url) => scenario(url, sdk),
    );
    expect(direct.filter((s) => s.startsWith('log'))).toEqual(['log announced']);
    expect(direct.indexOf('log announced')).toBeGreaterThan(direct.indexOf('call announce'));
    expect(recorded).toEqual(direct);
    const logs = replayed.filter((s) => s.startsWith('log'));
    expect(logs).toEqual(['log announced']);
    expect(replayed.indexOf('log announced')).toBeGreaterThan(replayed.indexOf('call announce'));
    expect(replayed.filter((s) => !s.startsWith('log'))).toEqual(direct.filter((s) => !s.startsWith('log')));
  }, 60_000);
}
