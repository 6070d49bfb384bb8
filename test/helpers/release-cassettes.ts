/**
 * Two releases of a real SDK (1.x) McpServer, each recorded into a cassette folder through wrapTransport (in
 * process, an InMemoryTransport pair: no port). Release 2 removes `fail`, narrows `add`'s `a` from any number to an
 * integer (zod's `.int()`), and prefixes echo's result with "v2:": the drift that `mcp-rewind diff` rates. Both list
 * a tool named `look up` (a space: lint's tool.name-invalid warning).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { wrapTransport } from '../../src/lib/index.js';
import { recordThrough } from './recording.js';
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
  // a name outside the allowed characters: a lint warning (tool.name-invalid), the same in both releases
  server.registerTool('look up', { description: 'Looks a word up' }, () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  if (release === 1)
    server.registerTool('fail', { description: 'Always fails' }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'failed on purpose' }],
    }));
  return server;
}

async function scenario(transport: Transport): Promise<void> {
  const client = new Client({ name: 'release-recorder', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  if (tools.some((t) => t.name === 'fail')) await client.callTool({ name: 'fail', arguments: {} });
  await client.close();
}

/**
 * Records one release (tools listed, add, echo and — where it exists — fail called) into a new cassette folder:
 * in process through wrapTransport, or (`via: 'proxy'`) over loopback HTTP through a record-mode proxy, which also
 * writes the debug files (`.req.json`: what lint reads the requests from).
 */
export async function recordRelease(release: Release, into?: string, via: 'wrap' | 'proxy' = 'wrap'): Promise<string> {
  const cassette = into ?? join(await tempDir(), `release-${release}`);
  if (via === 'proxy') {
    const http = await serveRelease(release);
    try {
      await recordThrough(http.url, (url) => scenario(new StreamableHTTPClientTransport(new URL(url))), cassette);
    } finally {
      await http.close();
    }
    return cassette;
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = serverOf(release);
  await server.connect(serverSide);
  const env = { MCP_REWIND_MODE: undefined, MCP_REWIND_STRICT: undefined, CI: undefined };
  await scenario(wrapTransport(clientSide, { mode: 'record', cassette, env }));
  await server.close();
  return cassette;
}

/** The release on 127.0.0.1 (any free port), stateless Streamable HTTP: a fresh McpServer for each POST. */
export async function serveRelease(release: Release): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    const server = serverOf(release);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((done) => http.close(() => done())),
  };
}
