import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { changeLine, diffValues, type Change } from '../../../shared/json-diff.js';
import { omitFields, type FieldPattern } from '../../../shared/json-path.js';
import type { JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { META } from '../../../shared/mcp-protocol.js';
import { setOwn } from '../../../shared/own.js';
import { deleteByPath, getByPath, type ResultHashOptions } from './hash.js';
import { canonicalJson } from './keys.js';

/**
 * How verify compares a live answer with the recorded ones, for every method alike: each answer is normalised —
 * `--result-hash-path` keeps only that part of a result (where the result has it), `--result-hash-ignore` and
 * `--ignore-fields` take fields out, the server's identity in a 2026-07-28 result's `_meta` is left out (a new
 * server version is not drift; server/discover reports it as info) — and the live one matches when it equals any
 * recorded one. Drift comes with every changed value and its JSON path, against the closest recorded answer.
 */

/** An answer as verify compares it: the result, or the error's code and message (its data is not compared). */
export type AnswerDoc = { result: Record<string, unknown> } | { error: { code: number; message: string } };

export interface CompareOptions {
  hashOptions?: ResultHashOptions;
  ignoreFields?: readonly FieldPattern[];
}

export interface Comparison {
  status: 'ok' | 'drift' | 'info';
  reason?: string;
  /** each changed value: `$.result.content[0].text: "a" → "b"` */
  changes?: string[];
}

/** How many changes a drift lists (the rest are counted). */
const MAX_CHANGES = 20;
/** How many recorded answers are diffed to find the closest. */
const MAX_CANDIDATES = 8;

export const answerOfEntry = (e: CassetteEntry): AnswerDoc =>
  e.error ? { error: { code: e.error.code, message: e.error.message } } : { result: e.result };
const answerOfResponse = (r: JsonRpcResponse): AnswerDoc =>
  'error' in r ? { error: { code: r.error.code, message: r.error.message } } : { result: r.result };

/** The normaliser of a verify run (see above). */
export function buildNormaliser(options: CompareOptions): (doc: AnswerDoc) => unknown {
  const { path, ignore = [] } = options.hashOptions ?? {};
  const patterns = options.ignoreFields ?? [];
  return (doc) => {
    if (!('result' in doc)) return omitFields(doc, patterns);
    let result: Record<string, unknown> = structuredClone(doc.result);
    if (path !== undefined && getByPath(result, path) !== undefined) result = picked(result, path);
    for (const p of ignore) deleteByPath(result, path === undefined ? p : `${path}.${p}`);
    dropServerInfo(result);
    return omitFields({ result }, patterns);
  };
}

/** A copy of `value` holding only what is at `path` (its parents as objects), so diff paths stay whole. */
function picked(value: Record<string, unknown>, path: string): Record<string, unknown> {
  const parts = path.split('.');
  const out: Record<string, unknown> = {};
  let at = out;
  parts.forEach((part, i) => {
    if (i === parts.length - 1) return setOwn(at, part, getByPath(value, path));
    const next: Record<string, unknown> = {};
    setOwn(at, part, next);
    at = next;
  });
  return out;
}

function dropServerInfo(result: Record<string, unknown>): void {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (meta === null || typeof meta !== 'object' || !(META.serverInfo in meta)) return;
  delete meta[META.serverInfo];
  if (Object.keys(meta).length === 0) delete result._meta;
}

/** The server's identity a 2026-07-28 result carries (`_meta`), as "name version". */
function serverInfoOf(result: Record<string, unknown>): string | undefined {
  const info = (result._meta as Record<string, unknown> | undefined)?.[META.serverInfo] as
    { name?: unknown; version?: unknown } | undefined;
  return info ? `${String(info.name)} ${String(info.version)}` : undefined;
}

/** Compares a live answer with the recorded entries that may answer its request. */
export function compareAnswers(
  method: string,
  recorded: readonly CassetteEntry[],
  live: JsonRpcResponse,
  normalise: (d: AnswerDoc) => unknown,
): Comparison {
  const liveDoc = normalise(answerOfResponse(live));
  const liveText = canonicalJson(liveDoc);
  const docs = recorded.map((e) => normalise(answerOfEntry(e)));
  if (docs.some((d) => canonicalJson(d) === liveText)) return sameButIdentity(method, recorded, live);
  const changes = closestChanges(docs, liveDoc);
  const lines = changes.slice(0, MAX_CHANGES).map((c) => changeLine(c));
  if (changes.length > MAX_CHANGES) lines.push(`… and ${changes.length - MAX_CHANGES} more`);
  return { status: 'drift', reason: headline(method, recorded, live, docs, liveDoc), changes: lines };
}

/** server/discover answered alike: a new server name or version is information, not drift. */
function sameButIdentity(method: string, recorded: readonly CassetteEntry[], live: JsonRpcResponse): Comparison {
  if (method !== 'server/discover' || !('result' in live)) return { status: 'ok' };
  const before = serverInfoOf(recorded[recorded.length - 1].result);
  const after = serverInfoOf(live.result);
  return before !== after ? { status: 'info', reason: `serverInfo ${before} → ${after}` } : { status: 'ok' };
}

/** The changes from the recorded answer closest to the live one (fewest changes; the latest recorded on a tie). */
function closestChanges(docs: readonly unknown[], live: unknown): Change[] {
  let best: Change[] | undefined;
  for (const doc of docs.slice(-MAX_CANDIDATES)) {
    const changes = diffValues(doc, live);
    if (!best || changes.length <= best.length) best = changes;
  }
  return best ?? [];
}

function headline(
  method: string,
  recorded: readonly CassetteEntry[],
  live: JsonRpcResponse,
  docs: readonly unknown[],
  liveDoc: unknown,
): string {
  if ('error' in live) {
    if (recorded.some((e) => e.error)) return 'error changed';
    return `the server answered error ${live.error.code}: ${live.error.message}`;
  }
  if (recorded.every((e) => e.error))
    return `the server answers a result where it answered error ${recorded[0].error?.code}: ${recorded[0].error?.message}`;
  if (method === 'tools/list') {
    const toolsOf = (d: unknown): unknown => (d as { result?: { tools?: unknown } }).result?.tools;
    return diffTools(toolsOf(docs[docs.length - 1]), toolsOf(liveDoc)) ?? 'result changed';
  }
  if (method === 'tools/call' && live.result.isError === true && !recorded.some((e) => e.result.isError === true))
    return 'result changed (now an error result)';
  return 'result changed';
}

type Tool = { name: string; description?: unknown; inputSchema?: unknown; outputSchema?: unknown };

/** tools/list drift: names added, removed, and tools whose description or schemas differ. */
function diffTools(recorded: unknown, live: unknown): string | undefined {
  const toMap = (list: unknown): Map<string, Tool> =>
    new Map((Array.isArray(list) ? (list as Tool[]) : []).map((t) => [String(t.name), t]));
  const before = toMap(recorded);
  const after = toMap(live);
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed: string[] = [];
  for (const [name, tool] of before) {
    const now = after.get(name);
    if (!now) continue;
    const fields = (['description', 'inputSchema', 'outputSchema'] as const).filter(
      (f) => canonicalJson(tool[f] ?? null) !== canonicalJson(now[f] ?? null),
    );
    if (fields.length) changed.push(`${name} (${fields.join(', ')})`);
  }
  const parts = [
    removed.length && `removed: ${removed.join(', ')}`,
    added.length && `added: ${added.join(', ')}`,
    changed.length && `changed: ${changed.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? `tools ${parts.join('; ')}` : undefined;
}
