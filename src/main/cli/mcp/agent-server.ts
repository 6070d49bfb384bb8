import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RewindApi, TrafficEvent } from '../../../shared/api.js';
import { SEVERITIES } from '../../../shared/insight/findings.js';
import { jsonChanges } from './json-diff.js';
import { redactForAgent } from './redact.js';

/**
 * `mcp-rewind mcp`: the inspector as an MCP server for a coding agent (Claude Code, Cursor…). A client of the running
 * UI's API (the one contract, src/shared/api.ts), built with the SDK's McpServer — this is our own server, so the
 * high-level class is the right tool here (live traffic never goes through it). Read-only by default: the tools that
 * send (resend_exchange, edit_and_resend) are offered only while Settings allow it, and the tool list changes (with
 * tools/list_changed) when the setting does. Everything it returns is redacted (redact.ts).
 */

/** bodies longer than this are cut, with the offset to ask for the rest */
const DEFAULT_MAX_CHARS = 20_000;
/** the exchanges listed as resources (the newest) */
const RESOURCE_COUNT = 50;
const LIST_CHANGED_MS = 500;

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(redactForAgent(value), null, 2) }],
});
const failed = (error: unknown): CallToolResult => ({
  content: [{ type: 'text', text: (error as Error).message ?? String(error) }],
  isError: true,
});

async function answer(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return json(await run());
  } catch (error) {
    return failed(error);
  }
}

/** A window of a long text: `offset`, at most `max` characters, and where the next window starts. */
export function page(
  text: string,
  offset = 0,
  max = DEFAULT_MAX_CHARS,
): { text: string; total_chars: number; next_offset?: number } {
  const end = Math.min(text.length, offset + max);
  return {
    text: text.slice(offset, end),
    total_chars: text.length,
    ...(end < text.length ? { next_offset: end } : {}),
  };
}

function partOf(e: TrafficEvent, part: string): unknown {
  if (part === 'request') return e.request;
  if (part === 'response') return e.response ?? null;
  if (part === 'stream') return { stream: e.stream, timing: e.timing?.stream };
  const { bytes: _b, ...rest } = e;
  return rest;
}

export interface AgentServer {
  server: McpServer;
  close(): Promise<void>;
}

/** The timeline's exchanges: listed, one in full, two compared. */
function registerTrafficTools(server: McpServer, api: RewindApi): void {
  server.registerTool(
    'list_exchanges',
    {
      title: 'List exchanges',
      description:
        'The MCP exchanges mcp-rewind saw, newest first, one line each (timeline number, proxy, method, tool, status, ms, problems, tokens). `query` is the timeline search box: free text matched in the JSON, and `has:problem`. Page with `before` (the `next` of the previous answer).',
      inputSchema: {
        query: z.string().max(2000).optional(),
        proxy: z.string().optional().describe('a proxy id (list_proxies)'),
        method: z.string().optional(),
        tool: z.string().optional(),
        limit: z.number().int().min(1).max(500).optional(),
        before: z.number().int().optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ query, proxy, method, tool, limit, before }) =>
      answer(() => api.call('traffic.query', { query, proxyId: proxy, method, tool, limit, before })),
  );
  server.registerTool(
    'get_exchange',
    {
      title: 'Get an exchange',
      description:
        'One exchange by its timeline number: request, response, streamed messages, timing, protocol problems and tokens (`part`: all, request, response, stream). Long bodies are cut at `max_chars`: ask again with `offset` = `next_offset` for the rest.',
      inputSchema: {
        seq: z.number().int(),
        part: z.enum(['all', 'request', 'response', 'stream']).optional(),
        offset: z.number().int().min(0).optional(),
        max_chars: z.number().int().min(100).max(200_000).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ seq, part, offset, max_chars }) =>
      answer(async () => {
        const { event, full } = await api.call('traffic.exchange', { seq });
        const text = JSON.stringify(redactForAgent(partOf(event, part ?? 'all')), null, 2);
        return {
          seq,
          part: part ?? 'all',
          ...(full ? {} : { note: 'the engine keeps this exchange with its large bodies truncated' }),
          ...page(text, offset, max_chars),
        };
      }),
  );
  server.registerTool(
    'diff_exchanges',
    {
      title: 'Compare two exchanges',
      description:
        'The differences between two exchanges (request, response, stream), leaf by leaf, with their JSON paths.',
      inputSchema: { a: z.number().int(), b: z.number().int() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) =>
      answer(async () => {
        const [x, y] = await Promise.all([
          api.call('traffic.exchange', { seq: a }),
          api.call('traffic.exchange', { seq: b }),
        ]);
        const pick = (e: TrafficEvent) => ({ request: e.request, response: e.response ?? null, stream: e.stream });
        return { a, b, changes: jsonChanges(pick(x.event), pick(y.event)) };
      }),
  );
}

/** The proxies, the findings, the cost, and cassettes on disk. */
function registerWorkspaceTools(server: McpServer, api: RewindApi): void {
  server.registerTool(
    'list_proxies',
    {
      title: 'List proxies',
      description:
        'The proxies of the running mcp-rewind: id, name, mode, state, local URL, exchange and problem counts.',
      annotations: { readOnlyHint: true },
    },
    () =>
      answer(async () =>
        (await api.call('proxies.list', {})).map((p) => ({
          id: p.id,
          name: p.name,
          mode: p.config.mode,
          state: p.state,
          url: p.url,
          exchanges: p.exchanges,
          problems: p.problems,
          error: p.error,
        })),
      ),
  );
  server.registerTool(
    'list_problems',
    {
      title: 'List problems',
      description:
        'What the protocol checks and security warnings found, newest first: exchange, rule id, severity, JSON path, message, spec link.',
      inputSchema: {
        proxy: z.string().optional(),
        severity: z.enum(SEVERITIES).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ proxy, severity, limit }) => answer(() => api.call('insight.problems', { proxyId: proxy, severity, limit })),
  );
  server.registerTool(
    'context_cost',
    {
      title: 'Context cost',
      description:
        'What a proxy’s (or one session’s) traffic, or a cassette on disk, puts in a model’s context in tokens: the lists before the first call, the 10 largest descriptions, results.',
      inputSchema: { proxy: z.string().optional(), session: z.string().optional(), path: z.string().optional() },
      annotations: { readOnlyHint: true },
    },
    ({ proxy, session, path }) =>
      answer(() => {
        if (path) return api.call('insight.cost', { path });
        if (!proxy) throw new Error('give `proxy` (list_proxies) or `path` (a cassette)');
        return api.call('insight.cost', { proxyId: proxy, ...(session ? { sessionId: session } : {}) });
      }),
  );
  server.registerTool(
    'cassette_entries',
    {
      title: 'Cassette entries',
      description: 'The entries of a cassette folder: file, number, key, tool, arguments, a preview of the result.',
      inputSchema: { dir: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    ({ dir }) => answer(() => api.call('cassettes.list', { dir })),
  );
  server.registerTool(
    'read_entry',
    {
      title: 'Read a cassette entry',
      description: 'One entry file of a cassette folder (its JSON text), cut at `max_chars` (page with `offset`).',
      inputSchema: {
        dir: z.string().min(1),
        file: z.string().min(1),
        offset: z.number().int().min(0).optional(),
        max_chars: z.number().int().min(100).max(200_000).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ dir, file, offset, max_chars }) =>
      answer(async () => {
        const { text } = await api.call('cassettes.read', { dir, file });
        let shown: string;
        try {
          shown = JSON.stringify(redactForAgent(JSON.parse(text)), null, 2);
        } catch {
          shown = redactForAgent(text);
        }
        return { file, ...page(shown, offset, max_chars) };
      }),
  );
}

function registerSendTools(server: McpServer, api: RewindApi): Array<{ enable(): void; disable(): void }> {
  const send = async (
    seq: number,
    kind: 'resend' | 'edit',
    change?: { params?: Record<string, unknown>; arguments?: Record<string, unknown> },
  ) => {
    const { event } = await api.call('traffic.exchange', { seq });
    let params = change?.params ?? event.request.params;
    if (change?.arguments) params = { ...(params ?? {}), arguments: change.arguments };
    const sent = await api.call('exchange.send', {
      proxyId: event.proxyId,
      method: event.request.method,
      params,
      kind,
      from: seq,
    });
    return { seq: sent.seq, response: sent.response };
  };
  const resend = server.registerTool(
    'resend_exchange',
    {
      title: 'Resend an exchange',
      description:
        'Sends an exchange’s request again through its proxy (rules, breakpoints, recording apply), on mcp-rewind’s own session; answers the new exchange.',
      inputSchema: { seq: z.number().int() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    ({ seq }) => answer(() => send(seq, 'resend')),
  );
  const edit = server.registerTool(
    'edit_and_resend',
    {
      title: 'Edit and resend an exchange',
      description:
        'Sends an exchange’s request again with new `params` (or, for tools/call, new `arguments`); answers the new exchange.',
      inputSchema: {
        seq: z.number().int(),
        params: z.record(z.string(), z.unknown()).optional(),
        arguments: z.record(z.string(), z.unknown()).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    ({ seq, params, arguments: args }) => answer(() => send(seq, 'edit', { params, arguments: args })),
  );
  return [resend, edit];
}

function registerExchangeResources(server: McpServer, api: RewindApi): void {
  server.registerResource(
    'exchange',
    new ResourceTemplate('rewind://exchange/{seq}', {
      list: async () => {
        const { items } = await api.call('traffic.query', { limit: RESOURCE_COUNT });
        return {
          resources: items.map((e) => ({
            uri: `rewind://exchange/${e.seq}`,
            name: `#${e.seq} ${e.method}${e.tool ? ` ${e.tool}` : ''}`,
            description: `${e.status}, ${e.durationMs} ms${e.problems ? `, ${e.problems} problem(s)` : ''}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'An exchange',
      description: 'An exchange of the timeline as JSON (secrets redacted)',
      mimeType: 'application/json',
    },
    async (uri, { seq }) => {
      const { event } = await api.call('traffic.exchange', { seq: Number(seq) });
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(redactForAgent(partOf(event, 'all')), null, 2),
          },
        ],
      };
    },
  );
}

/** The MCP server over a client of the running UI's API. */
export async function createAgentServer(api: RewindApi, version: string): Promise<AgentServer> {
  const server = new McpServer(
    { name: 'mcp-rewind', version },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
      instructions:
        'mcp-rewind records the MCP traffic between agents and servers. list_exchanges (newest first; `has:problem` finds protocol and security findings), get_exchange for one in full, list_problems, context_cost.',
    },
  );
  registerTrafficTools(server, api);
  registerWorkspaceTools(server, api);
  registerExchangeResources(server, api);
  const sendTools = registerSendTools(server, api);
  const applySetting = (allowed: boolean): void => sendTools.forEach((t) => (allowed ? t.enable() : t.disable()));
  applySetting((await api.call('settings.get', {})).settings.agentCanSend);
  const offSettings = api.on('settings', (info) => applySetting(info.settings.agentCanSend));
  let timer: NodeJS.Timeout | undefined;
  const offTraffic = api.on('traffic', () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      if (server.isConnected()) server.sendResourceListChanged();
    }, LIST_CHANGED_MS);
  });
  return {
    server,
    async close() {
      offSettings();
      offTraffic();
      clearTimeout(timer);
      await server.close();
    },
  };
}
