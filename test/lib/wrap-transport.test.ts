/**
 * wrapTransport: record and replay in-process around real SDK transports, with no port — SDK 1.x and 2.x clients,
 * server-everything over stdio; the cassette is the CLI's (each replays the other's); replay never starts the server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CassetteMissError, CassetteMissingError, wrapTransport } from '../../src/lib/index.js';
import { connectClient } from '../fixtures/client.js';
import { everythingEntry } from '../fixtures/everything.js';
import { killCliProcesses, startCliProcess } from '../helpers/cli-process.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const server = { command: process.execPath, args: [everythingEntry(), 'stdio'], stderr: 'ignore' as const };
const env = { MCP_REWIND_MODE: undefined, MCP_REWIND_STRICT: undefined, CI: undefined };

afterEach(killCliProcesses);
afterAll(removeTempDirs);

async function calls(client: Pick<Client, 'listTools' | 'callTool'>): Promise<unknown> {
  return {
    tools: (await client.listTools()).tools.map((t) => t.name).sort(),
    echo: await client.callTool({ name: 'echo', arguments: { message: 'in process' } }),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
  };
}

describe('wrapTransport around the SDK 1.x StdioClientTransport', () => {
  let cassette: string;
  let live: unknown;

  it('record: forwards to the spawned server and writes the CLI layout', async () => {
    cassette = join(await tempDir(), 'cassette');
    const stdio = new StdioClientTransport(server);
    const wrapped = wrapTransport(stdio, { mode: 'record', cassette, env });
    const client = new Client({ name: 'lib-test', version: '1.0.0' });
    await client.connect(wrapped);
    expect(stdio.pid).toBeGreaterThan(0);
    live = await calls(client);
    expect(JSON.stringify(live)).toContain('The sum of 19 and 23 is 42.');
    await client.close();
    const files = await distilledFiles(cassette);
    for (const key of ['initialize', 'tools_list', 'tools_call_echo_', 'tools_call_get-sum_'])
      expect(
        files.some((f) => f.includes(key)),
        key,
      ).toBe(true);
    expect(wrapped.exchanges().map((e) => e.method)).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call']);
    expect(wrapped.exchanges().every((e) => e.cassette === 'recorded')).toBe(true);
  });

  it('replay: the same answers, and the server is never spawned (no child process)', async () => {
    const stdio = new StdioClientTransport({ ...server, command: '/nonexistent/never-started' });
    const wrapped = wrapTransport(stdio, { mode: 'replay', cassette, env });
    const client = new Client({ name: 'lib-test', version: '1.0.0' });
    await client.connect(wrapped);
    expect(await calls(client)).toEqual(live);
    expect(stdio.pid).toBeNull();
    expect(wrapped.upstreamStarted).toBe(false);
    expect(wrapped.exchanges().every((e) => e.cassette === 'hit' && e.source === 'cache')).toBe(true);
    await client.close();
  });

  it('the in-process cassette replays through the CLI (a real process)', async () => {
    const proxy = await startCliProcess(['--replay', '--strict', '--cache', cassette]);
    const c = await connectClient(proxy.url);
    expect(await calls(c.client)).toEqual(live);
    await c.close();
    expect((await proxy.stop()).code).toBe(0); // strict: nothing missed
  });

  it('strict replay: a changed argument is a -32004 with the difference; misses() and CassetteMissError say it too', async () => {
    const wrapped = wrapTransport(new StdioClientTransport(server), { mode: 'replay', strict: true, cassette, env });
    const client = new Client({ name: 'lib-test', version: '1.0.0' });
    await client.connect(wrapped);
    const refused = await client
      .callTool({ name: 'get-sum', arguments: { a: 19, b: 24 } })
      .catch((error: Error & { code?: number }) => error);
    expect((refused as { code?: number }).code).toBe(-32004);
    expect(String(refused)).toContain('arguments.b: 23 recorded, 24 asked');
    const [miss] = wrapped.misses();
    expect(miss).toMatchObject({
      method: 'tools/call',
      tool: 'get-sum',
      closest: { differences: [{ path: 'arguments.b', recorded: 23, asked: 24 }] },
    });
    expect(miss.closest?.key).toMatch(/^tools_call_get-sum_[0-9a-f]{16}$/);
    const thrown = (() => {
      try {
        wrapped.assertNoMisses();
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(CassetteMissError);
    expect((thrown as CassetteMissError).closestKey).toBe(miss.closest?.key);
    expect((thrown as CassetteMissError).differences).toEqual([{ path: 'arguments.b', recorded: 23, asked: 24 }]);
    expect((thrown as Error).message).toContain('1 replay miss:');
    await client.close();
  });

  it("hybrid: a replayed initialize, then a miss opens the server with the client's own initialize and records the call", async () => {
    const stdio = new StdioClientTransport(server);
    const wrapped = wrapTransport(stdio, { mode: 'hybrid', cassette, env });
    const client = new Client({ name: 'lib-test', version: '1.0.0' });
    await client.connect(wrapped);
    expect(stdio.pid).toBeNull(); // initialize came from the cassette
    expect(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).toMatchObject({
      content: [{ text: 'The sum of 1 and 2 is 3.' }],
    });
    expect(stdio.pid).toBeGreaterThan(0);
    await client.close();
    expect(wrapped.exchanges().map((e) => e.cassette)).toEqual(['hit', 'recorded']);
  });

  it('replay of a missing cassette rejects with CassetteMissingError and creates nothing', async () => {
    const missing = join(await tempDir(), 'nope');
    const client = new Client({ name: 'lib-test', version: '1.0.0' });
    await expect(
      client.connect(wrapTransport(new StdioClientTransport(server), { mode: 'replay', cassette: missing, env })),
    ).rejects.toBeInstanceOf(CassetteMissingError);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('wrapTransport around the SDK 2.x StdioClientTransport', () => {
  it('a cassette recorded by the CLI replays in-process with the v2 client, and a v2 recording replays in-process', async () => {
    const cassette = join(await tempDir(), 'cli');
    const recording = await startCliProcess([
      '--upstream-command',
      `${process.execPath} ${everythingEntry()} stdio`,
      '--cache',
      cassette,
    ]);
    const c = await connectClient(recording.url);
    const live = await calls(c.client);
    await c.close();
    await recording.stop();

    const stdio = new V2StdioClientTransport({ command: '/nonexistent/never-started', stderr: 'ignore' });
    const wrapped = wrapTransport(stdio, { mode: 'replay', cassette, env });
    const client = new V2Client({ name: 'lib-test-v2', version: '1.0.0' });
    await client.connect(wrapped);
    expect(await calls(client as unknown as Client)).toEqual(live);
    expect(stdio.pid).toBeNull();
    await client.close();

    const own = join(await tempDir(), 'v2');
    const recorder = wrapTransport(new V2StdioClientTransport(server), { mode: 'record', cassette: own, env });
    const v2 = new V2Client({ name: 'lib-test-v2', version: '1.0.0' });
    await v2.connect(recorder);
    const recorded = await calls(v2 as unknown as Client);
    await v2.close();
    const replayer = wrapTransport(new V2StdioClientTransport({ command: '/nonexistent/never-started' }), {
      mode: 'replay',
      cassette: own,
      env,
    });
    const again = new V2Client({ name: 'lib-test-v2', version: '1.0.0' });
    await again.connect(replayer);
    expect(await calls(again as unknown as Client)).toEqual(recorded);
    await again.close();
  });
});
