import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { requestUrl } from '../../engine/http/url.js';

/**
 * The bundled demo MCP server (official SDK, stateful Streamable HTTP on 127.0.0.1:<random>/mcp): one tool per kind
 * of traffic worth seeing — text (weather), an image (logo), structured content (stats), progress (long-task) and a
 * server→client sampling request (summarize).
 */

export const DEMO_TOOLS = ['weather', 'logo', 'stats', 'long-task', 'summarize'] as const;
const LONG_TASK_STEPS = 5;
const LONG_TASK_STEP_MS = 100;

export interface DemoServer {
  url: string;
  close(): Promise<void>;
}

/** A 16×16 PNG (a blue→green gradient with a dot), made in code: no binary asset to ship. */
export function demoLogoPng(): Buffer {
  const size = 16;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA pixels
    for (let x = 0; x < size; x++) {
      const dot = (x - 8) ** 2 + (y - 8) ** 2 < 12;
      row.set(dot ? [255, 255, 255, 255] : [40, 80 + x * 10, 200 - y * 8, 255], 1 + x * 4);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface DemoStats {
  calls: number;
  startedAt: number;
}

/** weather (text), logo (an image) and stats (structured content) */
function registerContentTools(server: McpServer, stats: DemoStats): void {
  server.registerTool(
    'weather',
    { description: 'Current weather for a city (text)', inputSchema: { city: z.string() } },
    async ({ city }) => {
      stats.calls++;
      return { content: [{ type: 'text', text: `Sunny and 21 °C in ${city}` }] };
    },
  );

  const logo = demoLogoPng().toString('base64');
  server.registerTool('logo', { description: 'The demo logo (an image content block)' }, async () => {
    stats.calls++;
    return { content: [{ type: 'image', data: logo, mimeType: 'image/png' }] };
  });

  server.registerTool(
    'stats',
    {
      description: 'Server statistics (structured content)',
      outputSchema: { calls: z.number().int(), uptimeS: z.number() },
    },
    async () => {
      stats.calls++;
      const structuredContent = { calls: stats.calls, uptimeS: Math.round((Date.now() - stats.startedAt) / 1000) };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
}

/** the tools that send the client something while they run: long-task (progress) and summarize (sampling) */
function registerServerToClientTools(server: McpServer, stats: DemoStats): void {
  server.registerTool(
    'long-task',
    { description: `Works for ${LONG_TASK_STEPS} steps, reporting progress` },
    async (extra) => {
      stats.calls++;
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= LONG_TASK_STEPS; step++) {
        await sleep(LONG_TASK_STEP_MS);
        if (progressToken === undefined) continue;
        // sent with relatedRequestId = this call: on the call's own SSE stream
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: step, total: LONG_TASK_STEPS, message: `step ${step}/${LONG_TASK_STEPS}` },
        });
      }
      return { content: [{ type: 'text', text: `finished ${LONG_TASK_STEPS} steps` }] };
    },
  );

  server.registerTool(
    'summarize',
    { description: 'Summarizes a text by asking the client to sample', inputSchema: { text: z.string() } },
    async ({ text }, extra) => {
      stats.calls++;
      const answer = await server.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one line: ${text}` } }],
          maxTokens: 100,
        },
        { relatedRequestId: extra.requestId, timeout: 30_000 },
      );
      const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      const summary = block?.type === 'text' ? block.text : JSON.stringify(answer.content);
      return { content: [{ type: 'text', text: `Summary: ${summary}` }] };
    },
  );
}

/** schedule: a nested input schema, to try from Compose */
function registerScheduleTool(server: McpServer, stats: DemoStats): void {
  server.registerTool(
    'schedule',
    {
      description: 'Books a meeting (a nested input schema: try it from Compose)',
      inputSchema: {
        title: z.string().describe('What the meeting is about'),
        when: z.object({
          date: z.string().describe('YYYY-MM-DD'),
          time: z.string().optional(),
          durationMin: z.number().int().min(5).default(30),
        }),
        attendees: z.array(z.object({ name: z.string(), email: z.string().email().optional() })).optional(),
        priority: z.enum(['low', 'normal', 'high']).default('normal'),
        online: z.boolean().optional(),
      },
    },
    async ({ title, when, attendees, priority, online }) => {
      stats.calls++;
      const who = attendees?.length ? ` with ${attendees.map((a) => a.name).join(', ')}` : '';
      return {
        content: [
          {
            type: 'text',
            text: `Booked “${title}” on ${when.date}${when.time ? ` at ${when.time}` : ''} for ${when.durationMin} min${who} (${priority} priority${online ? ', online' : ''})`,
          },
        ],
      };
    },
  );
}

/** the brief prompt */
function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'brief',
    {
      description: 'A one-paragraph brief on a topic',
      argsSchema: { topic: z.string().describe('What the brief is about'), tone: z.string().optional() },
    },
    ({ topic, tone }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Write a one-paragraph brief on ${topic}${tone ? `, in a ${tone} tone` : ''}.`,
          },
        },
      ],
    }),
  );
}

/** the readme resource and the city template */
function registerResources(server: McpServer): void {
  server.registerResource(
    'readme',
    'demo://readme',
    { description: 'What the demo server is', mimeType: 'text/markdown' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text: '# mcp-rewind demo\nA small MCP server: weather, logo, stats, long-task, summarize and schedule.',
        },
      ],
    }),
  );
  server.registerResource(
    'city',
    new ResourceTemplate('demo://city/{name}', { list: undefined }),
    { description: 'A city sheet' },
    async (uri, { name }) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `${String(name)}: sunny, 21 °C` }],
    }),
  );
}

/** One session's server; tools, prompts and resources are listed in the order they are registered here. */
function buildServer(stats: DemoStats): McpServer {
  const server = new McpServer({ name: 'mcp-rewind-demo', version: '1.0.0' }, { capabilities: { tools: {} } });
  registerContentTools(server, stats);
  registerServerToClientTools(server, stats);
  // not called by the demo agent: for Compose (a nested input schema), prompts and resources to try
  registerScheduleTool(server, stats);
  registerPrompts(server);
  registerResources(server);
  return server;
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startDemoServer(): Promise<DemoServer> {
  const stats = { calls: 0, startedAt: Date.now() };
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (requestUrl(req).pathname !== '/mcp') return sendError(res, 404, 'Not found');
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const pair = sessions.get(sessionId);
      if (!pair) return sendError(res, 404, 'Session not found');
      return pair.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendError(res, 400, 'Mcp-Session-Id header is required');
    const server = buildServer(stats);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (transport.sessionId === undefined) await server.close(); // not an initialize: no session came of it
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      sendError(res, 500, error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await Promise.all([...sessions.values()].map((pair) => pair.server.close().catch(() => {})));
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
