/**
 * A stdio MCP server (official SDK) that crashes on purpose, for the stdio-upstream fault test
 * (test/reliability/faults.test.ts):
 *
 *   node --import tsx test/helpers/crashing-stdio-server.ts [after|during]
 *
 * Tool `echo` answers "echo: <text>". On its 2nd tool call the process exits with status 3:
 * - `after` (default): right after the 2nd answer was written to stdout;
 * - `during`: before answering the 2nd call (the call is in flight when the upstream dies).
 * Every call is counted per process; a respawned process starts again at 0.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const when = process.argv[2] === 'during' ? 'during' : 'after';
let calls = 0;

const server = new McpServer({ name: 'crashing-stdio', version: '1.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'echo',
  { description: 'Echo, until the 2nd call', inputSchema: { text: z.string() } },
  async ({ text }) => {
    calls++;
    if (calls === 2 && when === 'during') process.exit(3);
    if (calls === 2) setTimeout(() => process.exit(3), 20); // the answer is flushed first
    return { content: [{ type: 'text', text: `echo: ${text} (pid ${process.pid}, call ${calls})` }] };
  },
);
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
