import { KEYS, keyDef, tokenize } from './filter-query.js';

/**
 * Completion for the filter language: at the cursor, the keys (`st` → `status:`) or the values of the key being
 * typed (`tool:ec` → `tool:echo`), the values from the traffic seen (methods, tools, proxies, sessions, revisions)
 * besides each key's fixed ones. Pure.
 */

/** what the traffic offers as values, by key */
export type CompletionValues = Partial<Record<string, Array<[value: string, hint: string]>>>;

export interface Completion {
  /** what the list shows */
  label: string;
  hint: string;
  /** the text that replaces [from, to) */
  insert: string;
}

export interface CompletionResult {
  from: number;
  to: number;
  options: Completion[];
}

const MAX_OPTIONS = 50;

/** A value as the language reads it back: quoted when it holds a space, a quote or a comma. */
export function quoteValue(value: string): string {
  return /[\s",]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
}

function keyOptions(prefix: string): Completion[] {
  const lower = prefix.toLowerCase();
  return KEYS.filter((k) => k.name.startsWith(lower)).map((k) => ({
    label: k.compares ? `${k.name}>` : `${k.name}:`,
    hint: k.hint,
    insert: k.compares ? `${k.name}>` : `${k.name}:`,
  }));
}

function valueOptions(key: string, partial: string, values: CompletionValues): Completion[] {
  const def = keyDef(key);
  if (!def || def.compares) return [];
  const all = [...(def.values ?? []), ...(values[def.name] ?? [])];
  const lower = partial.toLowerCase();
  const starts = all.filter(([v]) => v.toLowerCase().startsWith(lower));
  const contains = lower
    ? all.filter(([v]) => !v.toLowerCase().startsWith(lower) && v.toLowerCase().includes(lower))
    : [];
  const seen = new Set<string>();
  const out: Completion[] = [];
  for (const [value, hint] of [...starts, ...contains]) {
    if (seen.has(value) || value.toLowerCase() === lower) continue;
    seen.add(value);
    out.push({ label: value, hint, insert: `${quoteValue(value)} ` });
  }
  return out;
}

/** The completions at `cursor`, or undefined when there is nothing to offer there. */
export function complete(text: string, cursor: number, values: CompletionValues): CompletionResult | undefined {
  const token = tokenize(text).find((t) => t.start <= cursor && cursor <= t.end);
  if (token?.regex) return undefined;
  const start = token ? token.start + (token.negate ? 1 : 0) : cursor;
  const typed = text.slice(start, cursor);
  const end = token ? token.end : cursor;
  const keyed = /^([a-z][a-z-]*)(:|>=|<=|>|<|=)(.*)$/i.exec(typed);
  if (keyed) {
    const afterKey = start + keyed[1].length + keyed[2].length;
    const comma = keyed[3].lastIndexOf(',');
    const from = comma >= 0 ? afterKey + comma + 1 : afterKey;
    const options = valueOptions(keyed[1], text.slice(from, cursor).replace(/^"/, ''), values).slice(0, MAX_OPTIONS);
    return options.length ? { from, to: end, options } : undefined;
  }
  if (typed.includes('"')) return undefined;
  const options = keyOptions(typed);
  return options.length ? { from: start, to: end, options } : undefined;
}

/** The text with a completion applied, and where the cursor goes. */
export function applyCompletion(
  text: string,
  result: CompletionResult,
  option: Completion,
): { text: string; cursor: number } {
  const rest = text.slice(result.to);
  const next =
    text.slice(0, result.from) + option.insert + (option.insert.endsWith(' ') ? rest.replace(/^ +/, '') : rest);
  return { text: next, cursor: result.from + option.insert.length };
}
