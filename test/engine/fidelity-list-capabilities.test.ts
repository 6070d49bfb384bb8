/**
 * Servers list by the client's declared capabilities: server-everything adds its roots, sampling and elicitation tools
 * only for clients that declare them (issue 21 item 12). Two clients with different capabilities — SDK v1 declaring
 * roots, sampling and elicitation, SDK v2 declaring none — list tools straight at the server, through record (both
 * lists are kept, not "skipped"), and through replay with the server stopped: each gets the list recorded for its own
 * capabilities. A third capability set, never recorded, gets a -32004 naming the difference with --strict. And the
 * MCP Inspector's CLI (the client the issue measured: 16 tools in replay, 13 live), recorded after a full-capability
 * client, gets its own list the three ways.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startEverything } from '../fixtures/everything.js';
import { REPO } from '../helpers/hostile.js';
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

/** The tool names the MCP Inspector CLI (a real process) lists at `url`. */
async function inspectorTools(url: string): Promise<string[]> {
  const build = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector-cli/build');
  const child = spawn(process.execPath, [path.join(build, 'index.js'), url, '--method', 'tools/list'], {
    cwd: build, // the CLI finds its own package.json from its folder
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the Inspector CLI exited ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
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

it('server-everything: the MCP Inspector CLI gets the list for its own capabilities, recorded after a full-capability client', async () => {
  const { direct, recorded, replayed } = await threeWays(() => startEverything('streamableHttp'), inspectorTools, {
    alsoRecord: (url) => v1Tools(url, FULL), // recorded first: its longer list must not be served to the Inspector
  });
  expect(direct.length).toBeGreaterThan(0);
  expect(direct).not.toContain('get-roots-list');
  expect(recorded).toEqual(direct);
  expect(replayed).toEqual(direct);
}, 60_000);
