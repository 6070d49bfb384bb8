/**
 * server-filesystem and server-memory from npm (stdio servers nobody here wrote) recorded and replayed: the client
 * sees the same straight at the command, through a recording proxy (the command bridged onto Streamable HTTP) and
 * through a replaying proxy with the command stopped (issue 21).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './helpers/temp.js';
import { MEMORY_ENTRY, throughWay, type PeerClient, type StdioCommand } from './helpers/stdio-peers.js';

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
        related: await call(peer, 'create_relations', { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] }),
        observed: await call(peer, 'add_observations', { observations: [{ entityName: 'Analytical Engine', contents: ['designed by Babbage'] }] }),
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
