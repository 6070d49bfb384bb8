/**
 * A replay miss, and the recorded request closest to it: pure data and pure functions, shared by the engine (the
 * strict miss answer), the CLI (the miss log and the summary at exit) and the library (`misses()`,
 * `CassetteMissError`). The store look-up that finds the candidates is the engine's (cassette/closest-key.ts).
 */

/** One value that differs between a recorded request and the asked one; `undefined` means absent on that side. */
export interface Difference {
  /** dot path into the compared request (`arguments.city`, `name`, `uri`) */
  path: string;
  recorded?: unknown;
  asked?: unknown;
}

/** The recorded key closest to a missed request, and what differs. */
export interface ClosestKey {
  key: string;
  differences: Difference[];
}

/** A request replay had no recorded answer for. */
export interface ReplayMiss {
  method: string;
  /** tools/call: the tool's name */
  tool?: string;
  /** the request's key (cassette-format.md) */
  key: string;
  /** what was asked: tools/call `{ name, arguments }`, other methods their params without `_meta` */
  asked: Record<string, unknown>;
  /** with `--repeat error`: every one of this many recorded answers was used already */
  exhausted?: number;
  /** the recorded request of the same tool or method (else of another tool) with the fewest differences (none listed: the entry does not keep its request) */
  closest?: ClosestKey;
}

/** A recorded request, as the closest-key search compares it. */
export interface RecordedRequest {
  key: string;
  method: string;
  params: Record<string, unknown>;
}

/** What is compared of a request: tools/call and prompts/get by name and arguments, others by params without `_meta`. */
export function comparedPart(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta, ...rest } = params ?? {};
  if (method === 'tools/call' || method === 'prompts/get') return { name: rest.name, arguments: rest.arguments ?? {} };
  return rest;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every leaf value that differs between two JSON values, by dot path (array items by index: `items.2`). */
export function differences(recorded: unknown, asked: unknown, path = ''): Difference[] {
  if (Object.is(recorded, asked)) return [];
  const bothObjects = isPlainObject(recorded) && isPlainObject(asked);
  const bothArrays = Array.isArray(recorded) && Array.isArray(asked);
  if (!bothObjects && !bothArrays) return [{ path: path || '(value)', recorded, asked }];
  const a = recorded as Record<string, unknown>;
  const b = asked as Record<string, unknown>;
  const keys = bothArrays
    ? Array.from({ length: Math.max((recorded as unknown[]).length, (asked as unknown[]).length) }, (_, i) => String(i))
    : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const out: Difference[] = [];
  for (const k of keys) {
    const has = (o: Record<string, unknown>): boolean => Object.hasOwn(o, k);
    const child = path ? `${path}.${k}` : k;
    if (!has(a)) out.push({ path: child, asked: b[k] });
    else if (!has(b)) out.push({ path: child, recorded: a[k] });
    else out.push(...differences(a[k], b[k], child));
  }
  return out;
}

/** The recorded request with the fewest differences from the asked one (the first of equals); undefined when none is given. */
export function closestOf(
  method: string,
  asked: Record<string, unknown> | undefined,
  candidates: readonly RecordedRequest[],
): ClosestKey | undefined {
  const wanted = comparedPart(method, asked);
  let best: ClosestKey | undefined;
  for (const candidate of candidates) {
    if (candidate.method !== method) continue;
    const found = differences(comparedPart(method, candidate.params), wanted);
    if (found.length === 0) continue; // the same request: not what differs
    if (!best || found.length < best.differences.length) best = { key: candidate.key, differences: found };
  }
  return best;
}

const MAX_VALUE = 80;
const shown = (value: unknown): string => {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
};

/** `arguments.city: "Paris" recorded, "paris" asked` */
export function describeDifference(d: Difference): string {
  return `${d.path}: ${shown(d.recorded)} recorded, ${shown(d.asked)} asked`;
}

/** The differences of a closest key, at most `limit` of them, joined: `a: 1 recorded, 2 asked; b: …` */
export function describeDifferences(differences: readonly Difference[], limit = 5): string {
  const listed = differences.slice(0, limit).map(describeDifference).join('; ');
  return differences.length > limit ? `${listed}; and ${differences.length - limit} more` : listed;
}

/** What was asked, in a few words: `tools/call "get-weather" {"city":"paris"}` or the method and its params. */
export function describeAsked(miss: Pick<ReplayMiss, 'method' | 'tool' | 'asked'>): string {
  if (miss.tool !== undefined)
    return `${miss.method} "${miss.tool}" with arguments ${shown(miss.asked.arguments ?? {})}`;
  return Object.keys(miss.asked).length ? `${miss.method} ${shown(miss.asked)}` : miss.method;
}

/**
 * One line for a miss: what was asked, its key, and the closest recorded key with what differs —
 * `tools/call "get-weather" with arguments {"city":"paris"} (key tools_call_get-weather_…): closest recorded
 * tools_call_get-weather_… (arguments.city: "Paris" recorded, "paris" asked)`.
 */
export function describeMiss(miss: ReplayMiss): string {
  const head = `${describeAsked(miss)} (key ${miss.key})`;
  if (miss.exhausted !== undefined)
    return `${head}: all ${miss.exhausted} recorded answer(s) were already used (--repeat error)`;
  if (!miss.closest) return `${head}: nothing recorded for this ${miss.tool !== undefined ? 'tool' : 'method'}`;
  const what = miss.closest.differences.length
    ? describeDifferences(miss.closest.differences)
    : 'its entry does not keep what it was asked';
  return `${head}: closest recorded ${miss.closest.key} (${what})`;
}

/** The summary of a run's misses: a count, then one line each (`  1. …`). */
export function describeMisses(misses: readonly ReplayMiss[]): string {
  const lines = misses.map((m, i) => `  ${i + 1}. ${describeMiss(m)}`);
  return [`${misses.length} replay miss${misses.length === 1 ? '' : 'es'}:`, ...lines].join('\n');
}
