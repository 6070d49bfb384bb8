/**
 * Two releases of a real SDK (1.x) McpServer, each recorded into a cassette folder through wrapTransport (in
 * process, an InMemoryTransport pair: no port). Release 2 removes `fail`, narrows `add`'s `a` from any number to an
 * integer (zod's `.int()`), and prefixes echo's result with "v2:": the drift that `mcp-rewind diff` rates.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { join } from 'node:path';
import { z } from 'zod';
import { wrapTransport } from '../../src/lib/index.js';
import { tempDir } from './temp.js';

export type Release = 1 | 2;

function serverOf(release: Release): McpServer {
  const server = new McpServer({ name: 'release-fixture', version: `${release}.0.0` });
  const a = release === 1 ? z.number() : z.number().int();
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a, b: z.number() } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `${release === 2 ? 'v2:' : ''}echo: ${text}` }],
  }));
  if (release === 1)
    server.registerTool('fail', { description: 'Always fails' }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'failed on purpose' }],
    }));
  return server;
}

/** Records one release (tools listed, add, echo and — where it exists — fail called) into a new cassette folder. */
export async function recordRelease(release: Release, into?: string): Promise<string> {
  const cassette = into ?? join(await tempDir(), `release-${release}`);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = serverOf(release);
  await server.connect(serverSide);
  const env = { MCP_REWIND_MODE: undefined, MCP_REWIND_STRICT: undefined, CI: undefined };
  const client = new Client({ name: 'release-recorder', version: '1.0.0' });
  await client.connect(wrapTransport(clientSide, { mode: 'record', cassette, env }));
  const { tools } = await client.listTools();
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  if (tools.some((t) => t.name === 'fail')) await client.callTool({ name: 'fail', arguments: {} });
  await client.close();
  await server.close();
  return cassette;
}
