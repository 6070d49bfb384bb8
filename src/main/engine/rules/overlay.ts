import type { Behavior, MergedTool, Overlay, OverrideResponse } from '../../../shared/rules/schema.js';

const RELAY: Behavior = { type: 'relay' };

/**
 * The tool list the agent sees: upstream tools patched by the overlay (only the fields given), unlisted upstream
 * tools kept (passthrough) or hidden, and overlay tools without an upstream counterpart added as synthetic tools.
 * `upstreamTools` undefined means there is no upstream: every listed tool is synthetic.
 */
export function mergeTools(upstreamTools: Array<Record<string, unknown>> | undefined, overlay: Overlay): MergedTool[] {
  const rules = new Map(overlay.tools.map((t) => [t.name, t]));
  const merged: MergedTool[] = [];
  const seen = new Set<string>();
  for (const tool of upstreamTools ?? []) {
    const name = String(tool.name);
    const rule = rules.get(name);
    if ((!rule && !overlay.passthrough) || rule?.hidden) continue;
    seen.add(name);
    merged.push({
      name,
      description: rule?.description ?? (tool.description as string | undefined),
      inputSchema: rule?.input_schema ?? (tool.inputSchema as Record<string, unknown>) ?? { type: 'object' },
      behavior: rule?.behavior ?? RELAY,
      origin: rule ? 'overlay' : 'upstream',
      upstream: tool,
    });
  }
  for (const rule of overlay.tools) {
    if (seen.has(rule.name) || rule.hidden) continue;
    merged.push({
      name: rule.name,
      description: rule.description ?? undefined,
      inputSchema: rule.input_schema ?? { type: 'object' },
      behavior: rule.behavior ?? RELAY,
      origin: 'synthetic',
    });
  }
  return merged;
}

/** A merged tool as it appears in a tools/list result (upstream-only fields such as outputSchema kept). */
export function toListedTool(tool: MergedTool): Record<string, unknown> {
  const listed: Record<string, unknown> = { ...(tool.upstream ?? {}), name: tool.name, inputSchema: tool.inputSchema };
  if (tool.description !== undefined) listed.description = tool.description;
  else delete listed.description;
  // an override without structured_content would break the upstream's outputSchema (clients validate against it)
  if (tool.behavior.type === 'override' && tool.behavior.response.structured_content === undefined)
    delete listed.outputSchema;
  return listed;
}

/** The CallToolResult of an override response. */
export function overrideResult(response: OverrideResponse): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: response.content ?? [{ type: 'text', text: response.text ?? '' }],
  };
  if (response.structured_content !== undefined) result.structuredContent = response.structured_content;
  if (response.is_error) result.isError = true;
  return result;
}

/** An isError result explaining why a call could not be made (relay/inject without an upstream, …). */
export function explanatoryError(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}
