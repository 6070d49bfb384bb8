import type { z } from 'zod';
import type { RulesFileSchema } from '../../shared/rules/schema.js';
import type { RunningProxy } from '../engine/proxy.js';
import type { HttpUpstream } from '../engine/upstream/http-upstream.js';

export type RulesFile = z.output<typeof RulesFileSchema>;

/** A tool of the merged list (upstream + overlay), as the Rules view shows it. */
export interface ToolView {
  name: string;
  description?: string;
  behavior: string;
  origin: string;
  inputSchema?: Record<string, unknown>;
}

const DISCOVERY_TIMEOUT_MS = 5_000;
const MAX_PAGES = 100;

/** The overlay (and instructions) a UI proxy starts with: its config's rules, or an empty passthrough overlay. */
export function engineRules(rules: RulesFile | undefined): { overlay: { tools: RulesFile['tools']; passthrough: boolean }; instructions?: string } {
  if (!rules) return { overlay: { tools: [], passthrough: true } };
  return { overlay: { tools: rules.tools, passthrough: rules.passthrough }, instructions: rules.instructions };
}

/**
 * The upstream's tool list as the proxy knows it: seen by a client's tools/list, else the cassette's recorded list,
 * else asked from the upstream now (a session of our own, ended at once; nothing is recorded). Undefined when there is
 * no way to know.
 */
export async function knownUpstreamTools(proxy: RunningProxy): Promise<Array<Record<string, unknown>> | undefined> {
  const memory = proxy.endpoint.memory;
  if (memory.upstreamTools) return memory.upstreamTools;
  const upstream = proxy.endpoint.ctx.upstream;
  if (upstream) {
    try {
      memory.upstreamTools ??= await withTimeout(discoverTools(upstream), DISCOVERY_TIMEOUT_MS);
      return memory.upstreamTools;
    } catch {
      /* unreachable upstream: fall back on the cassette */
    }
  }
  const recorded = proxy.store?.lookup('tools_list');
  const tools = recorded?.[recorded.length - 1]?.result.tools;
  return Array.isArray(tools) ? (tools as Array<Record<string, unknown>>) : undefined;
}

/** The merged tool list under the proxy's current rules. */
export async function mergedTools(proxy: RunningProxy): Promise<ToolView[]> {
  if (!proxy.rules) return [];
  const upstreamTools = await knownUpstreamTools(proxy);
  return proxy.rules.merged(upstreamTools).map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    behavior: tool.behavior.type,
    origin: tool.origin,
    inputSchema: tool.inputSchema,
  }));
}

/** Replaces the rules of a running proxy; answers how many connected clients were sent tools/list_changed. */
export function applyRules(proxy: RunningProxy, rules: RulesFile): number {
  if (!proxy.rules) throw new Error('this proxy was started without rules; restart it to edit them');
  proxy.rules.replace(engineRules(rules).overlay);
  return proxy.endpoint.notifyAll('notifications/tools/list_changed');
}

async function discoverTools(upstream: HttpUpstream): Promise<Array<Record<string, unknown>>> {
  const init = await upstream.initialize(
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-rewind-ui', version: '1' } },
    'mcp-rewind-ui-init',
  );
  try {
    const tools: Array<Record<string, unknown>> = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const id = `mcp-rewind-ui-tools-${page}`;
      const { status, messages } = await upstream.call({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, init.sessionId, init.protocolVersion);
      const answer = messages.find((m) => 'id' in m && m.id === id && !('method' in m));
      if (!answer || !('result' in answer)) throw new Error(`tools/list failed (HTTP ${status})`);
      tools.push(...((answer.result.tools as Array<Record<string, unknown>>) ?? []));
      cursor = answer.result.nextCursor;
      if (cursor === undefined || cursor === null) break;
    }
    return tools;
  } finally {
    if (init.sessionId) void upstream.endSession(init.sessionId, init.protocolVersion);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
