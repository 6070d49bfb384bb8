/**
 * Servers list by the client's declared capabilities: server-everything adds its roots, sampling and elicitation tools
 * only for clients that declare them (issue 21 item 12). Two clients with different capabilities — SDK v1 declaring
 * roots, sampling and elicitation, SDK v2 declaring none — list tools straight at the server, through record (both
 * lists are kept, not "skipped"), and through replay with the server stopped: each gets the list recorded for its own
 * capabilities. A third capability set, never recorded, gets a -32004 naming the difference with --strict.
 */
import { readdir } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startEverything } from '../fixtures/everything.js';
import { removeTempDirs } from '../helpers/temp.js';
import { outcome, threeWays } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const FULL = { roots: { listChanged: true }, sampling: {}, elicitation: {} };

async function v1Tools(url: string, capabilities: Record<string, unknown>): Promise<string[]> {
  const client = new Client({ name: 'caps-v1', version: '1.0.0' }, { capabilities });
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

async function v2Tools(url: string): Promise<string[]> {
  const client = new V2Client({ name: 'caps-v2', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new V2Transport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

const both = async (url: string) => ({ full: await v1Tools(url, FULL), none: await v2Tools(url) });

it('server-everything: a tools/list recorded for one capability set is replayed to that set only (v1 full, v2 none)', async () => {
  const { direct, recorded, replayed, cacheDir } = await threeWays(() => startEverything('streamableHttp'), both);
  // the server lists more tools to the client that declares roots, sampling and elicitation
  expect(direct.full.length).toBeGreaterThan(direct.none.length);
  expect(direct.full).toEqual(expect.arrayContaining(['get-roots-list']));
  expect(recorded).toEqual(direct);
  expect(replayed).toEqual(direct);
  const lists = (await readdir(cacheDir)).filter((f) => / tools_list\.json$/.test(f));
  expect(lists).toHaveLength(2); // the second session's list is recorded, not skipped

  const strict = await startProxy({ mode: 'replay', cacheDir, strict: true });
  try {
    // the same capabilities as a recording: answered; another set: a miss that says what differs
    expect(await v1Tools(strict.url, FULL)).toEqual(direct.full);
    const other = await outcome(v1Tools(strict.url, { roots: { listChanged: true } }));
    expect(other).toMatchObject({
      error: {
        code: -32004,
        message: expect.stringMatching(/recorded for client capabilities .*this client declares/),
      },
    });
  } finally {
    await strict.close();
  }
}, 60_000);
