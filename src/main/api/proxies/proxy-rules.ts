import { engineRules, type RulesFile } from '../../../shared/rules/schema.js';
import type { ToolView } from '../../../shared/api.js';
import type { RunningProxy } from '../../engine/proxy.js';
import type { RuleSet } from '../../engine/rules/rule-set.js';

export type { ToolView };

const DISCOVERY_TIMEOUT_MS = 5_000;
const MAX_PAGES = 100;

/**
 * The upstream's tool list as the proxy knows it: seen by a client's tools/list, else the cassette's recorded list,
 * else asked from the upstream now (a session of our own, ended at once; nothing is recorded). Undefined when there is
 * no way to know.
 */
export async function knownUpstreamTools(proxy: RunningProxy): Promise<Array<Record<string, unknown>> | undefined> {
  const memory = proxy.memory;
  if (memory.upstreamTools) return memory.upstreamTools;
  const upstream = proxy.endpoint.upstream;
  if (upstream) {
    try {
      memory.upstreamTools ??= await discoverTools(upstream.url, undefined);
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
  return toolViews(proxy.rules, await knownUpstreamTools(proxy));
}

/** The tools a rule set makes of the upstream's, as the Rules view lists them. */
export function toolViews(rules: RuleSet, upstreamTools: Array<Record<string, unknown>> | undefined): ToolView[] {
  return rules.merged(upstreamTools).map((tool) => ({
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

/** The upstream's tools, asked by a session of the proxy's own (SDK Client), ended at once; nothing is recorded. */
async function discoverTools(
  url: URL,
  headers: Record<string, string> | undefined,
): Promise<Array<Record<string, unknown>>> {
  const { closeOwnClient, connectOwnClient, listAllTools } = await import('../../engine/upstream/own-client.js');
  const client = await connectOwnClient(url, { name: 'mcp-rewind-ui', headers, timeoutMs: DISCOVERY_TIMEOUT_MS });
  try {
    return await listAllTools(client, DISCOVERY_TIMEOUT_MS, MAX_PAGES);
  } finally {
    void closeOwnClient(client);
  }
}
