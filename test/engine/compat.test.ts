import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { copyOf, removeTempDirs } from '../helpers/temp.js';

// A cache folder exactly as mcp-rewind writes it: bare results for initialize/tools_list/resources_list,
// {arguments, result, resultHash} for a tools/call, a pre-hashing bare tools/call result, key-less debug files.
const MCP_REWIND_CACHE = fileURLToPath(new URL('../fixtures/mcp-rewind-cache', import.meta.url));

describe('an mcp-rewind cache folder', () => {
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;
  afterEach(async () => {
    await client?.close();
    await proxy?.close();
    await removeTempDirs();
  });

  it('replays unchanged through a real SDK client', async () => {
    proxy = await startProxy({ mode: 'replay', cacheDir: await copyOf(MCP_REWIND_CACHE) });
    client = await connectClient(proxy.url);

    expect(client.client.getServerVersion()).toEqual({ name: 'recorded-by-mcp-rewind', version: '3.1.4' });
    expect(client.client.getInstructions()).toBe('Cassette written by mcp-rewind itself.');
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'add']);
    expect((await client.client.listResources()).resources).toEqual([{ uri: 'file:///readme.md', name: 'readme' }]);
    expect(await client.client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toEqual({
      content: [{ type: 'text', text: 'hello from mcp-rewind' }],
    });
    // the old bare-result format of a tools/call entry
    expect(await client.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: 'text', text: '5' }],
    });
  });

  it('answers an unrecorded call with a JSON-RPC error naming the call and what was recorded, and empty lists', async () => {
    proxy = await startProxy({ mode: 'replay', cacheDir: await copyOf(MCP_REWIND_CACHE) });
    client = await connectClient(proxy.url);
    const error = await client.client.callTool({ name: 'echo', arguments: { text: 'other' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32004);
    expect((error as McpError).message).toContain('tools/call "echo" with arguments {"text":"other"}');
    expect((error as McpError).message).toContain('tools_call_echo_cbbbdcd27692344d');
    expect((await client.client.listPrompts()).prompts).toEqual([]);
    expect((await client.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(client.client.ping()).resolves.toEqual({});
  });

  it('records new entries after the highest existing sequence number (hybrid)', async () => {
    const dir = await copyOf(MCP_REWIND_CACHE);
    proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    expect(proxy.store?.size).toBe(5);
    expect(proxy.store?.lookup('tools_call_echo_cbbbdcd27692344d')?.[0]).toMatchObject({
      n: 5,
      resultHash: 'da0894431d817bb9',
      arguments: { text: 'hello' },
    });
    expect(join(dir, proxy.store!.lookup('initialize')![0].file)).toBe(join(dir, '1 initialize.json'));
  });
});
