/**
 * A real MCP server from the official SDK: McpServer + StreamableHTTPServerTransport, stateless, JSON answers
 * (enableJsonResponse). A stateless transport cannot be reused, so — as the SDK's own stateless example does — each
 * POST gets a fresh server and transport. The tool answers with the same canned result as canned.ts.
 *   node --import tsx bench/servers/sdk.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { TOOL, toolResult } from '../cassette-gen.js';
import { announce } from './serve.js';

const RESULT = toolResult(0) as { content: Array<{ type: 'text'; text: string }> };

function newServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk-server', version: '1.0.0' });
  server.registerTool(
    TOOL,
    {
      description: 'Searches the reports',
      inputSchema: { query: z.string(), limit: z.number(), includeArchived: z.boolean() },
    },
    async () => RESULT,
  );
  return server;
}

const httpServer = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  server
    .connect(transport)
    .then(() => transport.handleRequest(req, res))
    .catch((error: unknown) => {
      process.stderr.write(`sdk server: ${(error as Error).message}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
});

httpServer.listen(0, '127.0.0.1', () => {
  const { port } = httpServer.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}/mcp`, async () => {
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  });
});
