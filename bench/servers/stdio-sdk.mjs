/**
 * The stdio server of the bridge bench (bench/bridge.ts): the official SDK's McpServer on StdioServerTransport with
 * the bench's `search` tool and its canned result. Plain JavaScript, so every bridge starts it the same way
 * (`node bench/servers/stdio-sdk.mjs`) without a TypeScript loader in the child.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const RESULT = {
  content: [{ type: 'text', text: JSON.stringify({ hits: [{ id: 0, title: 'Report 0', score: 1 }], total: 1 }) }],
};

const server = new McpServer({ name: 'bench-stdio-server', version: '1.0.0' });
server.registerTool(
  'search',
  {
    description: 'Searches the reports',
    inputSchema: { query: z.string(), limit: z.number(), includeArchived: z.boolean() },
  },
  async () => RESULT,
);
await server.connect(new StdioServerTransport());
