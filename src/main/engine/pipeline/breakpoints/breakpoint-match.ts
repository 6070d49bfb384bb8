import {
  DEFAULT_BREAKPOINT_METHOD,
  breakpointKey,
  isServerRequestMethod,
  breakpointText,
  type BreakpointRule,
  type BreakpointRuleInput,
  type BreakpointStage,
} from '../../../../shared/breakpoints.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { compileCondition, type ConditionTest } from '../../rules/condition.js';

/** The name a request is about, as a breakpoint's `tool` names it: the tool, the prompt, the resource URI, or ''. */
export function requestName(request: JsonRpcRequest): string {
  const params = request.params ?? {};
  if (request.method === 'tools/call' || request.method === 'prompts/get') return String(params.name ?? '');
  if (request.method.startsWith('resources/') && params.uri !== undefined) return String(params.uri);
  return '';
}

interface Compiled {
  rule: BreakpointRule;
  method: string;
  test?: ConditionTest;
}

let nextRule = 1;

/**
 * The rules of one registry, compiled once per change: which method and name each holds, and its condition. A rule
 * without a condition holds every call of its method and name; one with a condition holds those whose params
 * (request stage) or params and result (response stage) match it.
 */
export class BreakpointMatcher {
  private readonly byStage: Record<BreakpointStage, Compiled[]> = { request: [], response: [] };
  list: BreakpointRule[] = [];
  /** a rule holds the client's replies to some server request (the streams that carry those must be read) */
  holdsReplies = false;

  set(rules: ReadonlyArray<BreakpointRuleInput & { id?: string }>): void {
    const seen = new Set<string>();
    this.list = [];
    for (const rule of rules) {
      const key = breakpointKey(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      this.list.push({ ...rule, id: rule.id ?? `r${nextRule++}` });
    }
    const compiled = this.list.map((rule) => ({
      rule,
      method: rule.method ?? DEFAULT_BREAKPOINT_METHOD,
      ...(rule.condition ? { test: compileCondition(rule.condition) } : {}),
    }));
    this.byStage.request = compiled.filter((c) => c.rule.when === 'request');
    this.byStage.response = compiled.filter((c) => c.rule.when === 'response');
    this.holdsReplies = compiled.some((c) => isServerRequestMethod(c.method));
  }

  /** Could a rule of this stage hold the request (its method and name; the condition may still say no)? */
  mayHold(request: JsonRpcRequest, stage: BreakpointStage): boolean {
    return this.candidates(request, stage).length > 0;
  }

  /** The first rule that holds this request (and, at the response stage, its answer), as one line; else undefined. */
  holds(request: JsonRpcRequest, stage: BreakpointStage, response?: JsonRpcResponse): string | undefined {
    const subject = {
      method: request.method,
      params: request.params,
      ...(response && 'result' in response ? { result: response.result } : {}),
      ...(response && 'error' in response ? { error: response.error } : {}),
    };
    const hit = this.candidates(request, stage).find((c) => !c.test || c.test(subject));
    return hit && breakpointText(hit.rule);
  }

  private candidates(request: JsonRpcRequest, stage: BreakpointStage): Compiled[] {
    const rules = this.byStage[stage];
    if (rules.length === 0 || request.method === 'initialize') return [];
    const name = requestName(request);
    // '*' is every client request: a reply to the server's request is held only by a rule that names its method
    const any = !isServerRequestMethod(request.method);
    return rules.filter(
      (c) =>
        ((any && c.method === '*') || c.method === request.method) && (c.rule.tool === '*' || c.rule.tool === name),
    );
  }
}
