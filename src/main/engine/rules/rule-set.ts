import type { Behavior, MergedTool, Overlay } from '../../../shared/rules/schema.js';
import { explanatoryError, mergeTools, overrideResult, toListedTool } from './overlay.js';
import { renderTemplate } from './template.js';
import { compileCondition, type ConditionTest } from './condition.js';

/** What the pipeline does with a tools/call under the current rules. */
export type CallPlan =
  | { kind: 'answer'; result: Record<string, unknown>; delayMs: number; behavior: Behavior }
  | { kind: 'forward'; behavior: Behavior; rewrite?: (result: Record<string, unknown>) => Record<string, unknown> }
  | { kind: 'unknown-tool' };

/**
 * The rules of one proxy or session: overlay + instructions. Rules apply to whatever answered — upstream or
 * cassette. The merged list is computed once per (overlay version, upstream tool list), not per request.
 */
export class RuleSet {
  private overlay: Overlay;
  private version = 0;
  private cache?: { version: number; upstream: unknown; merged: MergedTool[]; byName: Map<string, MergedTool> };
  /** the compiled conditions of the overlay's tool rules (by tool name), for the current version */
  private conditions?: { version: number; byName: Map<string, ConditionTest> };

  constructor(
    overlay: Overlay,
    readonly instructions?: string,
  ) {
    this.overlay = overlay;
  }

  get overlayVersion(): number {
    return this.version;
  }

  get current(): Overlay {
    return this.overlay;
  }

  /** no tool rule, every upstream tool passed through and no instructions: the rules change nothing */
  get isEmpty(): boolean {
    return this.overlay.tools.length === 0 && this.overlay.passthrough && this.instructions === undefined;
  }

  replace(overlay: Overlay): void {
    this.overlay = overlay;
    this.version++;
  }

  /** The merged tools for an upstream tool list (undefined: no upstream tools known → overlay tools only). */
  merged(upstreamTools: Array<Record<string, unknown>> | undefined): MergedTool[] {
    return this.index(upstreamTools).merged;
  }

  rewriteInitialize(result: Record<string, unknown>): Record<string, unknown> {
    const capabilities = { ...((result.capabilities as Record<string, unknown>) ?? {}) };
    capabilities.tools = { ...((capabilities.tools as Record<string, unknown>) ?? {}), listChanged: true };
    const out: Record<string, unknown> = { ...result, capabilities };
    if (this.instructions !== undefined) out.instructions = this.instructions;
    return out;
  }

  rewriteToolsList(result: Record<string, unknown>, isFirstPage: boolean): Record<string, unknown> {
    const upstream = Array.isArray(result.tools) ? (result.tools as Array<Record<string, unknown>>) : [];
    const { merged } = this.index(upstream);
    const upstreamNames = new Set(upstream.map((t) => String(t.name)));
    // synthetic tools are listed once, on the first page
    const tools = merged
      .filter((t) => upstreamNames.has(t.name) || (isFirstPage && t.origin === 'synthetic'))
      .map(toListedTool);
    return { ...result, tools };
  }

  /**
   * How to handle a call to `name`. `upstreamTools` is the last known upstream list (to tell hidden tools from
   * unknown ones); `hasSource` says whether an upstream or a cassette can answer a forwarded call.
   */
  planCall(
    name: string,
    args: Record<string, unknown> | undefined,
    upstreamTools: Array<Record<string, unknown>> | undefined,
    hasSource: boolean,
    params: Record<string, unknown> = { name, arguments: args },
  ): CallPlan {
    const { byName } = this.index(upstreamTools);
    const listed = byName.get(name);
    const rule = this.overlay.tools.find((t) => t.name === name);
    if (rule?.hidden) return { kind: 'unknown-tool' };
    // a rule with a condition: its behavior only for the calls that match it; the others are relayed
    const test = this.conditionOf(name);
    const applies = !test || test({ method: 'tools/call', params });
    const tool = listed && !applies ? { ...listed, behavior: { type: 'relay' as const } } : listed;
    if (!tool) {
      // not listed: hidden by passthrough:false, or a tool we simply do not know yet (upstream list not fetched)
      if (!this.overlay.passthrough && upstreamTools !== undefined) return { kind: 'unknown-tool' };
      return { kind: 'forward', behavior: (applies && rule?.behavior) || { type: 'relay' } };
    }
    const { behavior } = tool;
    if (behavior.type === 'override')
      return {
        kind: 'answer',
        result: overrideResult(behavior.response),
        delayMs: (behavior.response.delay_s ?? 0) * 1000,
        behavior,
      };
    // with the upstream list unknown (not fetched yet) a listed tool may well exist upstream: let the source answer
    if (!hasSource || (tool.origin === 'synthetic' && upstreamTools !== undefined)) {
      const why = !hasSource
        ? 'this session has no upstream server'
        : 'it is a synthetic tool with no upstream counterpart';
      return {
        kind: 'answer',
        result: explanatoryError(
          `mcp-rewind: tool "${name}" has behavior "${behavior.type}" but ${why}; give it an override response`,
        ),
        delayMs: 0,
        behavior,
      };
    }
    if (behavior.type === 'inject') {
      const template = behavior.template;
      return {
        kind: 'forward',
        behavior,
        rewrite: (result) => ({ ...result, content: [{ type: 'text', text: renderTemplate(template, result, args) }] }),
      };
    }
    return { kind: 'forward', behavior };
  }

  private conditionOf(name: string): ConditionTest | undefined {
    if (this.conditions?.version !== this.version) {
      const byName = new Map<string, ConditionTest>();
      for (const rule of this.overlay.tools)
        if (rule.condition) byName.set(rule.name, compileCondition(rule.condition));
      this.conditions = { version: this.version, byName };
    }
    return this.conditions.byName.get(name);
  }

  private index(upstreamTools: Array<Record<string, unknown>> | undefined) {
    if (!this.cache || this.cache.version !== this.version || this.cache.upstream !== upstreamTools) {
      const merged = mergeTools(upstreamTools, this.overlay);
      this.cache = {
        version: this.version,
        upstream: upstreamTools,
        merged,
        byName: new Map(merged.map((t) => [t.name, t])),
      };
    }
    return this.cache;
  }
}
