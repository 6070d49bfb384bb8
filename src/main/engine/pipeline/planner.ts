import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { readsCassette } from '../../../shared/modes.js';
import type { EndpointContext } from './mcp-endpoint.js';
import type { LiveExchange } from './exchange.js';
import { rewritten, type Rewrite } from './relay.js';
import type { Session } from './session.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';

/** Where an exchange's answer comes from: made here (rules, cassette) or forwarded, maybe rewritten on the way back. */
export type Plan =
  | { kind: 'local'; delayMs: number }
  | { kind: 'forward'; rewrite?: Rewrite }
  /** a cache hit whose recording streamed messages before the answer: replay them too (stream-replay.ts) */
  | { kind: 'stream'; entry: CassetteEntry };

export interface ToolsMemory {
  /** the upstream's tool list as last seen (first page), so rules can tell hidden tools from unknown ones */
  upstreamTools?: Array<Record<string, unknown>>;
}

/**
 * Decides, per request, who answers: a rule (override, hidden tool), the cassette (replay, hybrid hit), the proxy
 * itself (no upstream), or the upstream. Rules apply on top of whichever source answers.
 */
export function planExchange(ctx: EndpointContext, memory: ToolsMemory, exchange: LiveExchange, session: Session | undefined): Plan {
  const { request } = exchange;
  let rewrite: Rewrite | undefined;
  const rules = ctx.rules;
  if (rules) {
    if (request.method === 'tools/call') {
      const name = String(request.params?.name ?? '');
      const args = request.params?.arguments as Record<string, unknown> | undefined;
      memory.upstreamTools ??= recordedToolList(ctx);
      const plan = rules.planCall(name, args, memory.upstreamTools, ctx.upstream !== undefined || (readsCassette(ctx.mode) && ctx.replayer !== undefined));
      if (plan.kind === 'unknown-tool') return answer(exchange, errorResponse(request.id, -32602, `Unknown tool: ${name}`));
      exchange.behavior = plan.behavior.type;
      if (plan.kind === 'answer') return answer(exchange, { jsonrpc: '2.0', id: request.id, result: plan.result }, plan.delayMs);
      rewrite = plan.rewrite;
    } else if (request.method === 'tools/list') {
      const firstPage = request.params?.cursor === undefined;
      rewrite = (result) => {
        if (firstPage) memory.upstreamTools = Array.isArray(result.tools) ? (result.tools as Array<Record<string, unknown>>) : [];
        return rules.rewriteToolsList(result, firstPage);
      };
    } else if (request.method === 'initialize') {
      rewrite = (result) => rules.rewriteInitialize(result);
    }
  }

  if (readsCassette(ctx.mode) && ctx.replayer && session) {
    const entry = ctx.replayer.hit(request, exchange.key, session);
    if (entry) {
      exchange.source = 'cache';
      exchange.cassette = 'hit';
      answer(exchange, rewritten({ jsonrpc: '2.0', id: request.id, result: entry.result }, rewrite), 0, 'cache');
      return entry.stream?.length ? { kind: 'stream', entry } : { kind: 'local', delayMs: 0 };
    }
    if (ctx.mode === 'replay' || !ctx.upstream) {
      exchange.cassette = 'miss';
      const miss = ctx.replayer.miss(request, exchange.key);
      return answer(exchange, rewritten(miss, rewrite));
    }
  }
  if (!ctx.upstream) {
    // no upstream and no cassette: only what rules define exists
    if (request.method === 'tools/list' && rewrite) return answer(exchange, { jsonrpc: '2.0', id: request.id, result: rewrite({ tools: [] }) });
    if (request.method === 'ping') return answer(exchange, { jsonrpc: '2.0', id: request.id, result: {} });
    if (request.method === 'tools/call') return answer(exchange, errorResponse(request.id, -32602, `Unknown tool: ${String(request.params?.name ?? '')}`));
    return answer(exchange, errorResponse(request.id, ErrorCode.MethodNotFound, `mcp-rewind: ${request.method} is not available: this session has no upstream server`));
  }
  return { kind: 'forward', rewrite };
}

function answer(exchange: LiveExchange, response: LiveExchange['response'], delayMs = 0, source: 'cache' | 'proxy' = 'proxy'): Plan {
  exchange.response = response;
  if (source === 'proxy' && exchange.source !== 'cache') exchange.source = 'proxy';
  return { kind: 'local', delayMs };
}

/** The tool list the cassette recorded (replay knows the upstream's tools without an upstream). */
function recordedToolList(ctx: EndpointContext): Array<Record<string, unknown>> | undefined {
  if (!readsCassette(ctx.mode)) return undefined;
  const tools = ctx.replayer?.peek('tools_list')?.result.tools;
  return Array.isArray(tools) ? (tools as Array<Record<string, unknown>>) : undefined;
}
