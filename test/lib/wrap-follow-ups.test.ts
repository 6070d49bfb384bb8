/**
 * wrapTransport replays what the server sent on its GET stream after an exchange (`after_<key>` entries) as the HTTP
 * replayer does (replay-follow-ups.ts): once, after the answer it followed in the recording — not after every answer
 * of that key — and a server→client request among them (server-everything's roots/list after connect) is asked of
 * the client, its reply taken by the library. The cassette is recorded through the proxy from server-everything
 * (Streamable HTTP, which tells the GET stream apart); replay runs in process with the server stopped, real SDK v1
 * and v2 clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { wrapTransport } from '../../src/lib/index.js';
import { startEverything } from '../fixtures/everything.js';
import { recordThrough } from '../helpers/recording.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

afterAll(removeTempDirs);

const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const env = { MCP_REWIND_MODE: undefined, MCP_REWIND_STRICT: undefined, CI: undefined };
const TOGGLE = { name: 'toggle-simulated-logging', arguments: {} };

/** What the client saw, in order: `asked roots/list`, `log <data>`, `answer <tool>: <first line>`. */
type Seen = string[];

/** The distilled entries of a cassette folder, each with its file name. */
async function distilled(dir: string): Promise<Array<Record<string, unknown> & { file: string }>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json') && !/\.(req|res|res-head)\.json$/.test(f));
  return Promise.all(files.map(async (file) => ({ file, ...JSON.parse(await readFile(join(dir, file), 'utf8')) })));
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/**
 * A client declaring roots: connects (server-everything asks roots/list and logs how many it got), starts the
 * server's simulated logging (one log at once, on the GET stream), echoes, stops the logging, echoes again.
 */
async function scenario(sdk: 'v1' | 'v2', transport: Transport, live: boolean): Promise<Seen> {
  const seen: Seen = [];
  const info = { name: 'lib-roots', version: '1.0.0' };
  const options = { capabilities: { roots: { listChanged: true } } };
  const client = sdk === 'v1' ? new Client(info, options) : new V2Client(info, options);
  const onRoots = (): { roots: typeof ROOTS } => {
    seen.push('asked roots/list');
    return { roots: ROOTS };
  };
  if (client instanceof Client) client.setRequestHandler(ListRootsRequestSchema, onRoots);
  else client.setRequestHandler('roots/list', onRoots);
  // the random level and the session id are the recorded server's: the text says which log it is
  client.fallbackNotificationHandler = async (n) =>
    void seen.push(`log ${String((n.params as { data?: unknown }).data).replace(/ - SessionId .*/, '')}`);
  await client.connect(transport);
  const logs = (): number => seen.filter((s) => s.startsWith('log ')).length;
  const call = async (params: { name: string; arguments: Record<string, unknown> }): Promise<void> => {
    const result = (await (client as Client).callTool(params)) as { content: Array<{ text: string }> };
    seen.push(`answer ${params.name}: ${result.content[0].text.split('\n')[0]}`);
  };
  try {
    if (live) await until(() => logs() >= 1); // roots asked, and its log, before the first call
    await call(TOGGLE);
    if (live) await until(() => logs() >= 2); // the simulated log, before the next call
    await call({ name: 'echo', arguments: { message: 'one' } });
    await call(TOGGLE);
    await call({ name: 'echo', arguments: { message: 'two' } });
    await new Promise((r) => setTimeout(r, 100)); // anything still on its way
    return seen;
  } finally {
    await client.close();
  }
}

for (const sdk of ['v1', 'v2'] as const) {
  it(`SDK ${sdk}: follow-ups replay once after the call they followed, and the GET stream's roots/list reaches the client`, async () => {
    const everything = await startEverything('streamableHttp');
    let cassette: string;
    let recorded: Seen;
    try {
      ({ cacheDir: cassette, seen: recorded } = await recordThrough(everything.url, (url) =>
        scenario(sdk, new StreamableHTTPClientTransport(new URL(url)), true),
      ));
    } finally {
      await everything.close();
    }
    expect(recorded.filter((s) => s === 'asked roots/list')).toHaveLength(1);

    const inner = new StreamableHTTPClientTransport(new URL(everything.url)); // the server is gone: never started
    const wrapped = wrapTransport(inner, { mode: 'replay', cassette, env });
    const replayed = await scenario(sdk, wrapped, false);
    expect(wrapped.upstreamStarted).toBe(false);
    expect(wrapped.misses()).toEqual([]);

    // live, the simulated log may come before its call's answer; replay sends it right after that answer, once
    const simulated = recorded.filter((s) => s.startsWith('log ') && !s.includes('Roots updated'));
    expect(simulated).toHaveLength(1);
    const answers = recorded.filter((s) => s.startsWith('answer '));
    // after initialize: the roots/list and the log of its reply (how an SDK orders a request and a notification that
    // arrive together is its own); then each call's answer, the simulated log after the first toggle's only
    expect(replayed.slice(0, 2).sort()).toEqual([
      'asked roots/list',
      'log Roots updated: 1 root(s) received from client',
    ]);
    expect(replayed.slice(2)).toEqual([answers[0], simulated[0], ...answers.slice(1)]);
    expect(answers[0]).toMatch(/^answer toggle-simulated-logging: Started/);
    expect(answers[2]).toMatch(/^answer toggle-simulated-logging: Stopped/);
  }, 60_000);
}

it('record in process: the roots/list the server asks on its GET stream is filed with the client reply, and asked again in replay', async () => {
  const everything = await startEverything('streamableHttp');
  const cassette = await tempDir();
  let live: Seen;
  try {
    const wrapped = wrapTransport(new StreamableHTTPClientTransport(new URL(everything.url)), {
      mode: 'record',
      cassette,
      env,
    });
    live = await scenario('v1', wrapped, true);
  } finally {
    await everything.close();
  }
  expect(live.filter((s) => s === 'asked roots/list')).toHaveLength(1);
  const asked = (await distilled(cassette)).find((e) => e.method === 'roots/list');
  expect(asked?.file).toMatch(/ after_initialize\.json$/);
  expect(asked?.stream).toEqual([
    { jsonrpc: '2.0', id: expect.anything(), method: 'roots/list' },
    { jsonrpc: '2.0', id: expect.anything(), result: { roots: ROOTS } },
  ]);

  const replay = wrapTransport(new StreamableHTTPClientTransport(new URL(everything.url)), {
    mode: 'replay',
    cassette,
    env,
  });
  const replayed = await scenario('v1', replay, false);
  expect(replayed.filter((s) => s === 'asked roots/list')).toHaveLength(1);
  expect(replay.upstreamStarted).toBe(false);
}, 60_000);
