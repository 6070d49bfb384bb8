import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { changeLine, diffValues } from '../../../shared/json-diff.js';
import { parseFieldPattern } from '../../../shared/json-path.js';
import { BARE_KEY_METHODS, canonicalJson } from './keys.js';
import { entriesByKey } from './recorded-request.js';
import { diffToolLists, type ToolChange } from './schema-diff.js';
import { CassetteStore } from './store.js';
import { answerOfEntry, buildNormaliser } from './verify-compare.js';

/**
 * `mcp-rewind diff <A> <B>`: what changed between two recordings, without a live server — the keys recorded in one
 * and not the other, the keys whose answers differ (each changed value with its JSON path, normalised as verify
 * normalises them), and the tools each listed, rated for their callers (schema-diff.ts): a removed tool or a narrowed
 * input schema is breaking, a new optional field compatible.
 */

export interface KeyChange {
  key: string;
  /** each changed value, from A's last answer to B's */
  changes: string[];
}

export interface CassetteDiff {
  a: string;
  b: string;
  tools: ToolChange[];
  /** why the tools were not compared (a cassette without any tools/list answer) */
  toolsNotCompared?: string;
  keys: { added: string[]; removed: string[]; changed: KeyChange[] };
  counts: { breaking: number; compatible: number; keysAdded: number; keysRemoved: number; keysChanged: number };
  breaking: boolean;
}

export interface DiffOptions {
  /** field patterns left out of the answers' comparison (verify's --ignore-fields) */
  ignoreFields?: string[];
  log?: (line: string) => void;
}

const methodOf = (e: CassetteEntry): string | undefined => e.method ?? BARE_KEY_METHODS.get(e.key);

/**
 * Every tool a cassette's tools/list answers named (pages and revisions together; a later entry wins), or undefined
 * when it holds no tools/list answer at all (then nothing can be said of its tools).
 */
function toolsOf(
  groups: ReadonlyArray<[string, readonly CassetteEntry[]]>,
): Array<Record<string, unknown> & { name: string }> | undefined {
  let listed = false;
  const tools = new Map<string, Record<string, unknown> & { name: string }>();
  for (const [, entries] of groups) {
    for (const e of entries) {
      if (methodOf(e) !== 'tools/list' || e.error || !Array.isArray(e.result.tools)) continue;
      listed = true;
      for (const tool of e.result.tools as Array<Record<string, unknown>>)
        if (typeof tool?.name === 'string') tools.set(tool.name, tool as never);
    }
  }
  return listed ? [...tools.values()] : undefined;
}

async function open(path: string, log?: (line: string) => void): Promise<Array<[string, readonly CassetteEntry[]]>> {
  const store = await CassetteStore.open(path, { watch: false, log: log && ((line) => log(line)) });
  try {
    return entriesByKey(store);
  } finally {
    store.close();
  }
}

/** Compares two cassettes (folders or single files, which must exist). */
export async function diffCassettes(a: string, b: string, options: DiffOptions = {}): Promise<CassetteDiff> {
  const [before, after] = await Promise.all([open(a, options.log), open(b, options.log)]);
  const normalise = buildNormaliser({ ignoreFields: (options.ignoreFields ?? []).map(parseFieldPattern) });
  const answers = (entries: readonly CassetteEntry[]): unknown[] => entries.map((e) => normalise(answerOfEntry(e)));
  const was = new Map(before);
  const now = new Map(after);
  const keys: CassetteDiff['keys'] = {
    added: after.map(([k]) => k).filter((k) => !was.has(k)),
    removed: before.map(([k]) => k).filter((k) => !now.has(k)),
    changed: [],
  };
  for (const [key, entries] of before) {
    const next = now.get(key);
    if (!next) continue;
    const [x, y] = [answers(entries), answers(next)];
    const text = new Set(x.map(canonicalJson));
    if (y.length === x.length && y.every((d) => text.has(canonicalJson(d)))) continue;
    const changes = diffValues(x[x.length - 1], y[y.length - 1]).map((c) => changeLine(c));
    keys.changed.push({ key, changes: changes.length ? changes : [`${x.length} recorded answer(s) → ${y.length}`] });
  }
  const [toolsBefore, toolsAfter] = [toolsOf(before), toolsOf(after)];
  const unlisted = [toolsBefore ? undefined : 'A', toolsAfter ? undefined : 'B'].filter(Boolean);
  const tools = toolsBefore && toolsAfter ? diffToolLists(toolsBefore, toolsAfter) : [];
  const rated = (r: string): number => tools.filter((t) => t.rating === r).length;
  const counts = {
    breaking: rated('breaking'),
    compatible: rated('compatible'),
    keysAdded: keys.added.length,
    keysRemoved: keys.removed.length,
    keysChanged: keys.changed.length,
  };
  const toolsNotCompared = unlisted.length ? `${unlisted.join(' and ')} recorded no tools/list answer` : undefined;
  return {
    a,
    b,
    tools,
    ...(toolsNotCompared ? { toolsNotCompared } : {}),
    keys,
    counts,
    breaking: counts.breaking > 0,
  };
}
