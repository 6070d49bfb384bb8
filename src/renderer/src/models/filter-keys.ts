import { hasProblem } from '../../../shared/insight/findings.js';
import { errorCode, exchangeSizes, failed, isChanged, statusKind, type ExchangeLike } from './exchange-facts.js';

/**
 * The filter language's keys (`method:`, `status:`, `duration>`…) and `has:` values, each compiled from its text
 * into a predicate (the language itself: filter-query.ts).
 */

/** What a predicate may need besides the exchange: pins and notes, names of proxies, who each session is. */
export interface QueryContext {
  mark(seq: number): { pinned: boolean; note?: string } | undefined;
  proxyName(id: string): string;
  session(id: string): { client?: string; app: boolean } | undefined;
}

export type Predicate = (e: ExchangeLike, ctx: QueryContext) => boolean;

/** `has:` values: one entry each. */
export const HAS: Record<string, { hint: string; test: Predicate }> = {
  error: { hint: 'a JSON-RPC error, a tool error (isError) or an HTTP error', test: (e) => failed(e) },
  stream: { hint: 'messages streamed before the answer', test: (e) => e.stream.length > 0 },
  edit: { hint: 'changed by a rule or a breakpoint', test: (e) => isChanged(e) },
  note: { hint: 'a note', test: (e, ctx) => Boolean(ctx.mark(e.seq)?.note) },
  pin: { hint: 'pinned', test: (e, ctx) => Boolean(ctx.mark(e.seq)?.pinned) },
  flag: { hint: 'flagged by the engine (e.g. a replayed reply that differed)', test: (e) => Boolean(e.flags?.length) },
  truncated: { hint: 'a body over 256 kB, kept truncated', test: (e) => e.truncated !== undefined },
  problem: { hint: 'a protocol problem or a security warning (the ⚠ column)', test: (e) => hasProblem(e) },
};

type Compiled = Predicate | { problem: string };

export interface KeyDef {
  name: string;
  hint: string;
  /** values offered by the completion (fixed ones; the context adds the seen methods, tools…) */
  values?: Array<[string, string]>;
  /** a comparison key: `duration>500`, `size<=1k` */
  compares?: boolean;
  compile(value: string, op: Op): Compiled;
}

export type Op = ':' | '>' | '>=' | '<' | '<=' | '=';

/** `echo`, `tools/*`, `*search*`: exact (any case) unless it has a `*` wildcard */
function nameMatcher(pattern: string): (name: string | undefined) => boolean {
  const lower = pattern.toLowerCase();
  if (!lower.includes('*')) return (name) => name !== undefined && name.toLowerCase() === lower;
  const re = new RegExp(`^${lower.split('*').map(escapeRegExp).join('.*')}$`, 'i');
  return (name) => name !== undefined && re.test(name);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 500, 10k, 1.5M, 2kb (1k = 1,024 bytes) */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)i?b?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(m[1]) * unit);
}

/** 500, 500ms, 1.5s (milliseconds) */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/i.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1000 : 1);
}

function compare(op: Op, a: number, b: number): boolean {
  if (op === '>') return a > b;
  if (op === '>=' || op === ':') return a >= b;
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  return a === b;
}

const STATUS_WORDS: Record<string, Predicate> = {
  ok: (e) => statusKind(e) === 'ok',
  error: (e) => statusKind(e) === 'error',
  'tool-error': (e) => statusKind(e) === 'tool error',
  pending: (e) => statusKind(e) === 'pending',
  held: (e) => statusKind(e) === 'held',
};

function compileStatus(value: string): Compiled {
  const word = STATUS_WORDS[value.toLowerCase()];
  if (word) return word;
  const http = /^([1-5])xx$/i.exec(value);
  if (http) return (e) => Math.floor((e.http?.status ?? 0) / 100) === Number(http[1]);
  if (/^-?\d+$/.test(value)) {
    const code = Number(value);
    return (e) => errorCode(e) === code || e.http?.status === code;
  }
  return { problem: 'ok, error, tool-error, pending, held, a JSON-RPC code (-32602) or an HTTP status (404, 4xx)' };
}

const SOURCES: Record<string, Predicate> = {
  upstream: (e) => e.source === 'upstream',
  cache: (e) => e.source === 'cache',
  cassette: (e) => e.source === 'cache',
  proxy: (e) => e.source === 'proxy',
  rule: (e) => Boolean(e.behavior && e.behavior !== 'relay'),
};

/** ms since local midnight, or an absolute epoch ms: `12:03`, `12:03:04.120`, `2026-05-01T12:03:04` */
export function parseTime(text: string): { ofDay: number } | { at: number } | undefined {
  const day = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(text);
  if (day) {
    const [h, m, s = '0', ms = '0'] = day.slice(1);
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59) return undefined;
    return { ofDay: ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms.padEnd(3, '0')) };
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) {
    const at = new Date(text).getTime();
    return Number.isNaN(at) ? undefined : { at };
  }
  return undefined;
}

function msOfDay(at: number): number {
  const d = new Date(at);
  return ((d.getHours() * 60 + d.getMinutes()) * 60 + d.getSeconds()) * 1000 + d.getMilliseconds();
}

function compileTime(value: string, after: boolean): Compiled {
  const t = parseTime(value);
  if (!t) return { problem: 'a time of day (12:03:04.120) or a date and time (2026-05-01T12:03:04)' };
  const of = (e: ExchangeLike): number => ('at' in t ? e.startedAt : msOfDay(e.startedAt));
  const edge = 'at' in t ? t.at : t.ofDay;
  return after ? (e) => of(e) >= edge : (e) => of(e) < edge;
}

const named = (get: (e: ExchangeLike, ctx: QueryContext) => string | undefined) => (value: string) => {
  const matches = nameMatcher(value);
  return (e: ExchangeLike, ctx: QueryContext) => matches(get(e, ctx));
};

function compileSession(value: string): Compiled {
  const lower = value.toLowerCase();
  if (lower === 'app') return (e) => e.sentBy !== undefined;
  const client = nameMatcher(value);
  return (e, ctx) => {
    if (!e.sessionId) return false;
    return e.sessionId.toLowerCase().startsWith(lower) || client(ctx.session(e.sessionId)?.client);
  };
}

function compileMeasure(parse: (v: string) => number | undefined, of: (e: ExchangeLike) => number, example: string) {
  return (value: string, op: Op): Compiled => {
    const n = parse(value);
    if (n === undefined) return { problem: `a number, e.g. ${example}` };
    return (e) => compare(op, of(e), n);
  };
}

/** The filters, by key. */
export const KEYS: KeyDef[] = [
  { name: 'method', hint: 'the JSON-RPC method (tools/call, resources/*)', compile: named((e) => e.method) },
  { name: 'tool', hint: 'the tool of a tools/call', compile: named((e) => e.tool) },
  {
    name: 'status',
    hint: 'ok, error, tool-error, pending, a code',
    values: [
      ['ok', 'answered'],
      ['error', 'a JSON-RPC error'],
      ['tool-error', 'a result with isError'],
      ['pending', 'no answer yet'],
      ['held', 'held at a breakpoint'],
      ['4xx', 'an HTTP 4xx from the upstream'],
    ],
    compile: compileStatus,
  },
  {
    name: 'source',
    hint: 'who answered: upstream, cache, proxy, rule',
    values: [
      ['upstream', 'the live server'],
      ['cache', 'the cassette'],
      ['proxy', 'the proxy itself'],
      ['rule', 'an override or inject rule'],
    ],
    compile: (v) => SOURCES[v.toLowerCase()] ?? { problem: 'upstream, cache, proxy or rule' },
  },
  { name: 'proxy', hint: 'a proxy or an opened file, by name', compile: named((e, ctx) => ctx.proxyName(e.proxyId)) },
  { name: 'session', hint: 'an MCP session: its id (start), its client, or app', compile: compileSession },
  {
    name: 'has',
    hint: Object.keys(HAS).join(', '),
    values: Object.entries(HAS).map(([v, d]) => [v, d.hint]),
    // `has:problems` too, as the REST API's and the agents' query says it
    compile: (v) =>
      HAS[v.toLowerCase().replace(/^problems$/, 'problem')]?.test ?? { problem: Object.keys(HAS).join(', ') },
  },
  {
    name: 'larger-than',
    hint: 'request + answer + stream bytes (10k, 1M)',
    compile: compileMeasure(parseSize, (e) => exchangeSizes(e).total, '10k'),
  },
  {
    name: 'size',
    hint: 'bytes, compared: size>10k, size<=1k',
    compares: true,
    compile: compileMeasure(parseSize, (e) => exchangeSizes(e).total, 'size>10k'),
  },
  {
    name: 'duration',
    hint: 'ms to the answer, compared: duration>500, duration<1s',
    compares: true,
    compile: compileMeasure(parseDuration, (e) => (e.response ? e.durationMs : -1), 'duration>500'),
  },
  { name: 'after', hint: 'started at or after a time (12:03:04)', compile: (v) => compileTime(v, true) },
  { name: 'before', hint: 'started before a time (12:03:05)', compile: (v) => compileTime(v, false) },
  { name: 'revision', hint: 'the MCP protocol revision (2025-06-18)', compile: named((e) => e.protocolVersion) },
  { name: 'key', hint: 'the cassette key (tools_call_echo_*)', compile: named((e) => e.key) },
];

const KEY_BY_NAME = new Map(KEYS.map((k) => [k.name, k]));
export const keyDef = (name: string): KeyDef | undefined => KEY_BY_NAME.get(name.toLowerCase());
