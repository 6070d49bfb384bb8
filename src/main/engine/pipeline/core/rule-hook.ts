import { ErrorCode } from '../../../../shared/jsonrpc.js';
import { RewindError, UnknownToolError } from '../../errors.js';
import type { RuleSet } from '../../rules/rule-set.js';
import type { Hook, Need, RuleOffer, RuleSource } from './contract.js';
import type { LiveExchange } from './exchange.js';

const RELAYED: RuleOffer = { behavior: 'relay' };

/** What the rules remember of the upstream: its tool list as last seen (first page), to tell hidden tools from unknown ones. */
export interface ToolsMemory {
  upstreamTools?: Array<Record<string, unknown>>;
}

export interface RuleFacts {
  /** can an upstream or a cassette answer a forwarded call? */
  hasSource(): boolean;
  /** the tool list the cassette recorded (replay knows the upstream's tools without an upstream) */
  recordedTools(): Array<Record<string, unknown>> | undefined;
}

/**
 * The rule set as an answer source and a hook: it offers its own answers (override, hidden tool) and, holding the
 * answer, rewrites whichever source answers (inject, the merged tools/list, initialize). An empty rule set (no tool
 * rule, passthrough, no instructions) needs nothing: initialize and tools/list pass through byte for byte. Rules can
 * change live (the client is then told on a server stream of the proxy's own: sources.ts `pushes`).
 */
export class RuleHook implements RuleSource, Hook {
  readonly name = 'rules';

  constructor(
    readonly rules: RuleSet,
    readonly memory: ToolsMemory,
    private readonly facts: RuleFacts,
  ) {}

  offer(exchange: LiveExchange): RuleOffer | undefined {
    const { request } = exchange;
    if (this.rules.isEmpty) return request.method === 'tools/call' ? RELAYED : undefined;
    const rules = this.rules;
    if (request.method === 'tools/call') {
      const name = String(request.params?.name ?? '');
      this.memory.upstreamTools ??= this.facts.recordedTools();
      const plan = rules.planCall(
        name,
        request.params?.arguments as Record<string, unknown> | undefined,
        this.memory.upstreamTools,
        this.facts.hasSource(),
        request.params,
      );
      if (plan.kind === 'unknown-tool')
        return { answer: { response: new UnknownToolError(name).toResponse(request.id), delayMs: 0 } };
      if (plan.kind === 'answer')
        return {
          behavior: plan.behavior.type,
          answer: { response: { jsonrpc: '2.0', id: request.id, result: plan.result }, delayMs: plan.delayMs },
        };
      return { behavior: plan.behavior.type, rewrite: plan.rewrite };
    }
    if (request.method === 'tools/list') {
      const firstPage = request.params?.cursor === undefined;
      return {
        rewrite: (result) => {
          if (firstPage)
            this.memory.upstreamTools = Array.isArray(result.tools)
              ? (result.tools as Array<Record<string, unknown>>)
              : [];
          return rules.rewriteToolsList(result, firstPage);
        },
      };
    }
    if (request.method === 'initialize') return { rewrite: (result) => rules.rewriteInitialize(result) };
    return undefined;
  }

  need(exchange?: LiveExchange): Need {
    if (!exchange) return this.rules.isEmpty ? 'none' : 'hold';
    return exchange.delivery.rewrite ? 'hold' : 'none';
  }

  onResponse(exchange: LiveExchange): void {
    const response = exchange.response;
    if (!exchange.delivery.rewrite || !response || !('result' in response)) return;
    exchange.timeline.originalResponse ??= response; // what the source answered, for the timeline
    try {
      exchange.respond({ ...response, result: exchange.delivery.rewrite(response.result) });
    } catch (error) {
      // a rewrite that fails (an inject template rendering too large) answers an error, never a broken result
      exchange.respond(
        new RewindError(error instanceof Error ? error.message : String(error), ErrorCode.InternalError).toResponse(
          response.id,
        ),
      );
    }
  }
}
