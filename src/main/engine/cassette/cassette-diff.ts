import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { DIFF_RULES, type DiffRuleId } from '../../../shared/gate/diff-rules.js';
import type { Level } from '../../../shared/gate/levels.js';
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

/**
 * One change, classified once: its rule and level (shared/gate/diff-rules.ts), what it is, and the cassette file it
 * rests on. The text lines, the totals, the exit status and the SARIF results are all made from these.
 */
export interface DiffFinding {
  rule: DiffRuleId;
  level: Level;
  /** a tool change: the tool, and where in it (`inputSchema.properties.a.type`; absent for a tool added or removed) */
  tool?: string;
  at?: string;
  /** a key change: the key */
  key?: string;
  /** what changed, in words (`type narrowed: "number" → "integer"`, `removed`, `added`) */
  message: string;
  /** an answer that changed: each changed value with its JSON path */
  changes?: string[];
  /** the file it rests on: B's entry, or A's for what B no longer has (the cassette itself when it is one file) */
  file: string;
}

export interface CassetteDiff {
  a: string;
  b: string;
  /** every change, in the order printed */
  findings: DiffFinding[];
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

type Tool = Record<string, unknown> & { name: string };
type Groups = ReadonlyArray<[string, readonly CassetteEntry[]]>;

/** A cassette opened for comparison: its entries by key, and the file an entry is in. */
interface Opened {
  groups: Groups;
  fileOf(entry: CassetteEntry): string;
}

/**
 * Every tool a cassette's tools/list answers named (pages and revisions together; a later entry wins) with the entry
 * that named it, or undefined when it holds no tools/list answer at all (then nothing can be said of its tools).
 */
function toolsOf(groups: Groups): Map<string, { tool: Tool; entry: CassetteEntry }> | undefined {
  let listed = false;
  const tools = new Map<string, { tool: Tool; entry: CassetteEntry }>();
  for (const [, entries] of groups) {
    for (const e of entries) {
      if (methodOf(e) !== 'tools/list' || e.error || !Array.isArray(e.result.tools)) continue;
      listed = true;
      for (const tool of e.result.tools as Array<Record<string, unknown>>)
        if (typeof tool?.name === 'string') tools.set(tool.name, { tool: tool as Tool, entry: e });
    }
  }
  return listed ? tools : undefined;
}

async function open(path: string, log?: (line: string) => void): Promise<Opened> {
  const store = await CassetteStore.open(path, { watch: false, log: log && ((line) => log(line)) });
  const folder = statSync(path).isDirectory();
  try {
    return { groups: entriesByKey(store), fileOf: (e) => (folder ? join(path, e.file) : path) };
  } finally {
    store.close();
  }
}

const finding = (rule: DiffRuleId, fields: Omit<DiffFinding, 'rule' | 'level'>): DiffFinding => ({
  rule,
  level: DIFF_RULES[rule].level,
  ...fields,
});

/** The tool changes as findings: an added or removed tool one, a changed tool one per detail. */
function toolFindings(
  changes: readonly ToolChange[],
  before: Map<string, { entry: CassetteEntry }>,
  after: Map<string, { entry: CassetteEntry }>,
  a: Opened,
  b: Opened,
): DiffFinding[] {
  return changes.flatMap((t) => {
    const file = t.change === 'removed' ? a.fileOf(before.get(t.tool)!.entry) : b.fileOf(after.get(t.tool)!.entry);
    if (t.rule) return [finding(t.rule, { tool: t.tool, message: t.change, file })];
    return t.details.map((d) => finding(d.rule, { tool: t.tool, at: d.at, message: d.what, file }));
  });
}

/** The keys added, removed and changed as findings, each on the file of its last entry (B's, A's if removed). */
function keyFindings(keys: CassetteDiff['keys'], a: Opened, b: Opened): DiffFinding[] {
  const last = (o: Opened, key: string): string => o.fileOf(new Map(o.groups).get(key)!.at(-1)!);
  return [
    ...keys.added.map((key) => finding('diff.key-added', { key, message: 'added', file: last(b, key) })),
    ...keys.removed.map((key) => finding('diff.key-removed', { key, message: 'removed', file: last(a, key) })),
    ...keys.changed.map((c) =>
      finding('diff.answer-changed', { key: c.key, message: 'changed', changes: c.changes, file: last(b, c.key) }),
    ),
  ];
}

/** The totals, counted from the findings (the lines printed): tool changes by rating, keys by kind. */
function countsOf(findings: readonly DiffFinding[]): CassetteDiff['counts'] {
  const count = (test: (f: DiffFinding) => boolean): number => findings.filter(test).length;
  return {
    breaking: count((f) => f.tool !== undefined && f.level === 'error'),
    compatible: count((f) => f.tool !== undefined && f.level !== 'error'),
    keysAdded: count((f) => f.rule === 'diff.key-added'),
    keysRemoved: count((f) => f.rule === 'diff.key-removed'),
    keysChanged: count((f) => f.rule === 'diff.answer-changed'),
  };
}

/** Compares two cassettes (folders or single files, which must exist). */
export async function diffCassettes(a: string, b: string, options: DiffOptions = {}): Promise<CassetteDiff> {
  const [opened, openedB] = await Promise.all([open(a, options.log), open(b, options.log)]);
  const [before, after] = [opened.groups, openedB.groups];
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
  const list = (m: Map<string, { tool: Tool }>): Tool[] => [...m.values()].map((t) => t.tool);
  const tools = toolsBefore && toolsAfter ? diffToolLists(list(toolsBefore), list(toolsAfter)) : [];
  const findings = [
    ...(toolsBefore && toolsAfter ? toolFindings(tools, toolsBefore, toolsAfter, opened, openedB) : []),
    ...keyFindings(keys, opened, openedB),
  ];
  const counts = countsOf(findings);
  const toolsNotCompared = unlisted.length ? `${unlisted.join(' and ')} recorded no tools/list answer` : undefined;
  return {
    a,
    b,
    findings,
    tools,
    ...(toolsNotCompared ? { toolsNotCompared } : {}),
    keys,
    counts,
    breaking: counts.breaking > 0,
  };
}
