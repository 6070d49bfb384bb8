/**
 * server-filesystem and server-memory from npm (stdio servers nobody here wrote) recorded and replayed: the client
 * sees the same straight at the command, through a recording proxy (the command bridged onto Streamable HTTP) and
 * through a replaying proxy with the command stopped (issue 21).
 *
 * And issue 21 item 2: server-filesystem asks `roots/list` the moment the client's `notifications/initialized`
 * reaches it — before the client has opened its GET stream, and with no request in flight to carry it. The bridge
 * used to hand such a message to the SDK's server transport, which drops it without a GET stream: the server kept
 * its start folder (proxy-only 0/5, record 1/5). Now the bridge holds it until the GET stream opens.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './helpers/temp.js';
import {
  connectThroughCli,
  FILESYSTEM_ENTRY,
  MEMORY_ENTRY,
  throughWay,
  within,
  type PeerClient,
  type StdioCommand,
  type Way,
} from './helpers/stdio-peers.js';

afterAll(removeTempDirs);

/** what a tool call ended with: its content, or the error's message */
async function call(peer: PeerClient, name: string, args: Record<string, unknown>): Promise<unknown> {
  try {
    const result = await peer.client.callTool({ name, arguments: args });
    return { content: result.content, isError: result.isError ?? false };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Two folders: the one the server starts with, and the root the client offers (where the notes are). */
async function folders(): Promise<{ start: string; root: string }> {
  const base = await realpath(await tempDir('rewind-fs-'));
  const start = join(base, 'start');
  const root = join(base, 'root');
  await mkdir(start);
  await mkdir(root);
  await writeFile(join(root, 'notes.txt'), 'from the client root\n');
  return { start, root };
}

/** How long a roots/list may take to arrive after connect (it comes at once when it comes at all). */
const ROOTS_MS = 3_000;

describe('server-filesystem: roots/list right after connect (issue 21 item 2)', () => {
  it('reaches the client every time, directly, through proxy-only and through record (n/5 printed)', async () => {
    const { start, root } = await folders();
    const command: StdioCommand = { args: [FILESYSTEM_ENTRY, start] };
    const delivered: Record<string, number> = {};
    for (const way of ['direct', 'proxy-only', 'record'] as const) {
      delivered[way] = 0;
      for (let run = 0; run < 5; run++) {
        const got = await throughWay(way, command, undefined, async (connect) => {
          const peer = await connect([root]);
          return within(ROOTS_MS, () => peer.rootsAsked() > 0);
        });
        if (got) delivered[way]++;
      }
    }
    console.log(
      `roots/list delivered: direct ${delivered.direct}/5, proxy-only ${delivered['proxy-only']}/5, record ${delivered.record}/5`,
    );
    expect(delivered).toEqual({ direct: 5, 'proxy-only': 5, record: 5 });
  }, 120_000);

  it('reaches a --stdio client of the built CLI every time, proxy-only and recording (n/5 printed)', async () => {
    const { start, root } = await folders();
    const command: StdioCommand = { args: [FILESYSTEM_ENTRY, start] };
    const delivered: Record<string, number> = { 'proxy-only': 0, record: 0 };
    for (const way of ['proxy-only', 'record'] as const) {
      for (let run = 0; run < 5; run++) {
        const peer = await connectThroughCli(
          command,
          way === 'record' ? ['--cache', await tempDir()] : ['--proxy-only'],
          [root],
        );
        if (await within(ROOTS_MS, () => peer.rootsAsked() > 0)) delivered[way]++;
        await peer.close();
      }
    }
    console.log(
      `roots/list delivered through --stdio: proxy-only ${delivered['proxy-only']}/5, record ${delivered.record}/5`,
    );
    expect(delivered).toEqual({ 'proxy-only': 5, record: 5 });
  }, 120_000);

  for (const sdk of ['v1', 'v2'] as const)
    it(`the server serves the client root three ways: direct, through record, through replay (server stopped), SDK ${sdk} client`, async () => {
      const { start, root } = await folders();
      const command: StdioCommand = { args: [FILESYSTEM_ENTRY, start] };
      const cacheDir = await tempDir();
      const scenario = async (connect: (roots?: string[]) => Promise<PeerClient>, way: Way) => {
        const peer = await connect([root]);
        const asked = await within(ROOTS_MS, () => peer.rootsAsked() > 0);
        // the server applies the roots it got (a few fs calls, then a line on stderr) before it is asked anything
        if (way !== 'replay')
          await within(ROOTS_MS, () => peer.serverSaid().includes('Updated allowed directories from MCP roots'));
        return {
          asked,
          allowed: await call(peer, 'list_allowed_directories', {}),
          listing: await call(peer, 'list_directory', { path: root }),
          read: await call(peer, 'read_text_file', { path: join(root, 'notes.txt') }),
          outside: await call(peer, 'list_directory', { path: start }),
        };
      };
      const direct = await throughWay('direct', command, undefined, (c) => scenario(c, 'direct'), sdk);
      expect(direct.asked).toBe(true);
      expect(JSON.stringify(direct.allowed)).toContain(root);
      expect(JSON.stringify(direct.outside)).toContain('denied');
      const recorded = await throughWay('record', command, cacheDir, (c) => scenario(c, 'record'), sdk);
      expect(recorded).toEqual(direct);
      const replayed = await throughWay('replay', command, cacheDir, (c) => scenario(c, 'replay'), sdk);
      expect(replayed).toEqual(direct);
    }, 60_000);
});

describe('server-memory: a knowledge graph recorded and replayed', () => {
  it('the client sees the same graph three ways: direct, through record, through replay (server stopped)', async () => {
    const cacheDir = await tempDir();
    const fresh = async (): Promise<StdioCommand> => ({
      args: [MEMORY_ENTRY],
      env: { MEMORY_FILE_PATH: join(await tempDir('rewind-memory-'), 'memory.jsonl') },
    });
    const scenario = async (connect: (roots?: string[]) => Promise<PeerClient>) => {
      const peer = await connect();
      const tools = (await peer.client.listTools()).tools.map((t) => t.name).sort();
      return {
        tools,
        created: await call(peer, 'create_entities', {
          entities: [
            { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
            { name: 'Analytical Engine', entityType: 'machine', observations: [] },
          ],
        }),
        related: await call(peer, 'create_relations', {
          relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }],
        }),
        observed: await call(peer, 'add_observations', {
          observations: [{ entityName: 'Analytical Engine', contents: ['designed by Babbage'] }],
        }),
        graph: await call(peer, 'read_graph', {}),
        found: await call(peer, 'search_nodes', { query: 'Babbage' }),
        missing: await call(peer, 'add_observations', { observations: [{ entityName: 'Nobody', contents: ['x'] }] }),
      };
    };
    const direct = await throughWay('direct', await fresh(), undefined, scenario);
    expect(JSON.stringify(direct.graph)).toContain('programmed');
    expect(await throughWay('record', await fresh(), cacheDir, scenario)).toEqual(direct);
    expect(await throughWay('replay', await fresh(), cacheDir, scenario)).toEqual(direct);
  }, 60_000);
});
