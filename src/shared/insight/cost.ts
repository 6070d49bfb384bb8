/**
 * Context cost: what the lists, results and reads of a recording put in a model's context, in tokens. The counter
 * is given (the engine's is gpt-tokenizer's o200k_base); each definition is counted on its JSON text, which is close
 * to what clients hand the model but not the same — and other models' tokenizers differ by about 10–20%.
 */
import type { ExchangeEvent } from '../traffic.js';

export type TokenCounter = (text: string) => number;

export type DefinitionKind = 'tool' | 'prompt' | 'resource' | 'template';

export interface CostItem {
  kind: DefinitionKind;
  name: string;
  /** the whole definition (name, description, schemas) */
  tokens: number;
  /** its description alone */
  description: number;
}

export interface CostReport {
  label: string;
  tokenizer: string;
  exchanges: number;
  /** the latest definitions of each kind, summed; `instructions`: the server's initialize instructions */
  lists: Record<DefinitionKind | 'instructions', number>;
  /** what the definitions and instructions cost before the first call */
  beforeFirstCall: number;
  /** every definition, largest first */
  definitions: CostItem[];
  /** the 10 largest descriptions */
  largestDescriptions: CostItem[];
  results: { count: number; tokens: number; largest?: { seq: number; method: string; tool?: string; tokens: number } };
}

export interface CostChange {
  kind: DefinitionKind;
  name: string;
  /** tokens in A and in B (absent: not there) */
  a?: number;
  b?: number;
}

export interface CostDiff {
  a: string;
  b: string;
  beforeFirstCall: { a: number; b: number };
  lists: Record<DefinitionKind | 'instructions', { a: number; b: number }>;
  results: { a: number; b: number };
  /** definitions added, removed or of another size, the largest change first */
  changes: CostChange[];
}

const LIST_KIND: Record<string, { kind: DefinitionKind; field: string; key: string }> = {
  'tools/list': { kind: 'tool', field: 'tools', key: 'name' },
  'prompts/list': { kind: 'prompt', field: 'prompts', key: 'name' },
  'resources/list': { kind: 'resource', field: 'resources', key: 'uri' },
  'resources/templates/list': { kind: 'template', field: 'resourceTemplates', key: 'uriTemplate' },
};
const RESULT_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get']);

type Result = Record<string, unknown>;
const resultOf = (e: ExchangeEvent): Result | undefined =>
  e.response && 'result' in e.response ? e.response.result : undefined;

/** The text of what an exchange puts in the context (lists, results, reads, initialize's instructions), or undefined. */
export function contextText(e: ExchangeEvent): string | undefined {
  const result = resultOf(e);
  if (!result) return undefined;
  if (e.method === 'initialize') return typeof result.instructions === 'string' ? result.instructions : undefined;
  if (!LIST_KIND[e.method] && !RESULT_METHODS.has(e.method)) return undefined;
  const { _meta: _ignored, ...shown } = result;
  return JSON.stringify(shown);
}

/** The tokens an exchange puts in the context, or undefined when it puts nothing there. */
export function exchangeTokens(e: ExchangeEvent, count: TokenCounter): number | undefined {
  const text = contextText(e);
  return text === undefined ? undefined : count(text);
}

/** The cost of a recording: its exchanges, oldest first (later lists replace earlier definitions of the same name). */
export function costOf(
  events: readonly ExchangeEvent[],
  count: TokenCounter,
  label: string,
  tokenizer: string,
): CostReport {
  const definitions = new Map<string, CostItem>();
  let instructions = 0;
  const results: CostReport['results'] = { count: 0, tokens: 0 };
  for (const e of events) {
    const result = resultOf(e);
    if (!result) continue;
    if (e.method === 'initialize' && typeof result.instructions === 'string') instructions = count(result.instructions);
    const list = LIST_KIND[e.method];
    if (list && Array.isArray(result[list.field])) {
      for (const def of result[list.field] as Array<Record<string, unknown>>) {
        const name = String(def?.[list.key] ?? '');
        const description = typeof def?.description === 'string' ? count(def.description) : 0;
        definitions.set(`${list.kind}\u0000${name}`, {
          kind: list.kind,
          name,
          tokens: count(JSON.stringify(def)),
          description,
        });
      }
    }
    if (RESULT_METHODS.has(e.method)) {
      const tokens = exchangeTokens(e, count) ?? 0;
      results.count++;
      results.tokens += tokens;
      if (!results.largest || tokens > results.largest.tokens)
        results.largest = { seq: e.seq, method: e.method, tool: e.tool, tokens };
    }
  }
  const all = [...definitions.values()].sort((x, y) => y.tokens - x.tokens);
  const lists: CostReport['lists'] = { tool: 0, prompt: 0, resource: 0, template: 0, instructions };
  for (const d of all) lists[d.kind] += d.tokens;
  return {
    label,
    tokenizer,
    exchanges: events.length,
    lists,
    beforeFirstCall: lists.tool + lists.prompt + lists.resource + lists.template + instructions,
    definitions: all,
    largestDescriptions: [...all].sort((x, y) => y.description - x.description).slice(0, 10),
    results,
  };
}

/** What changed in cost from recording A to recording B. */
export function costDiff(a: CostReport, b: CostReport): CostDiff {
  const key = (d: CostItem): string => `${d.kind}\u0000${d.name}`;
  const inA = new Map(a.definitions.map((d) => [key(d), d]));
  const inB = new Map(b.definitions.map((d) => [key(d), d]));
  const changes: CostChange[] = [];
  for (const [k, d] of inA)
    if (inB.get(k)?.tokens !== d.tokens)
      changes.push({ kind: d.kind, name: d.name, a: d.tokens, b: inB.get(k)?.tokens });
  for (const [k, d] of inB) if (!inA.has(k)) changes.push({ kind: d.kind, name: d.name, b: d.tokens });
  changes.sort((x, y) => Math.abs((y.b ?? 0) - (y.a ?? 0)) - Math.abs((x.b ?? 0) - (x.a ?? 0)));
  const kinds = ['tool', 'prompt', 'resource', 'template', 'instructions'] as const;
  return {
    a: a.label,
    b: b.label,
    beforeFirstCall: { a: a.beforeFirstCall, b: b.beforeFirstCall },
    lists: Object.fromEntries(kinds.map((k) => [k, { a: a.lists[k], b: b.lists[k] }])) as CostDiff['lists'],
    results: { a: a.results.tokens, b: b.results.tokens },
    changes,
  };
}
