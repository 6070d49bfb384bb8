import type { TrafficEvent } from '../../../shared/api.js';

type Schema = Record<string, unknown>;

/** The tool's inputSchema from the newest tools/list answer of this proxy, if the timeline holds one. */
export function toolInputSchema(
  exchanges: TrafficEvent[],
  proxyId: string | undefined,
  tool: string,
): Schema | undefined {
  for (let i = exchanges.length - 1; i >= 0; i--) {
    const e = exchanges[i];
    if (e.proxyId !== proxyId || e.method !== 'tools/list' || !e.response || !('result' in e.response)) continue;
    const tools = (e.response.result as { tools?: Array<{ name?: string; inputSchema?: Schema }> }).tools;
    const found = tools?.find((t) => t.name === tool);
    if (found) return found.inputSchema;
  }
  return undefined;
}
