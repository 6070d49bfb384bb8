import { REFUSAL_KINDS, type RefusalKind } from '../../../shared/cassette/refusal-kinds.js';
import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { hash16 } from '../fs/hash16.js';
import { safeKey } from './safe-name.js';

/** mcp-rewind's arguments hash: sha256(JSON.stringify(arguments ?? {})), 16 hex. */
export const argumentsHash = (args: unknown): string => hash16(JSON.stringify(args ?? {}));

/** Paginated list methods: without a cursor they keep mcp-rewind's bare keys (tools_list, resources_list, …). */
const LIST_METHODS = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'tasks/list',
]);
/** Methods whose answer does not depend on their params. */
const PARAMLESS = new Set(['initialize', 'ping']);

function withoutMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!params) return {};
  const { _meta, ...rest } = params;
  return rest;
}

/**
 * The cache key of a request (before file-name escaping). One rule per method:
 * - initialize, ping → the method name
 * - tools/call → `tools_call_<name>_<argumentsHash>` (mcp-rewind)
 * - list methods → `tools_list`, … ; with a cursor `tools_list_<hash(cursor)>`
 * - prompts/get → `prompts_get_<name>_<argumentsHash>`
 * - a later round of a multi-round tools/call or prompts/get (2026-07-28 input_required: the request carries the
 *   client's `inputResponses` and/or the server's `requestState`) → that key + `_r<hash({inputResponses, requestState})>`,
 *   so each round is its own entry and one user's answers never replay another's
 * - any other method → `<method with / as _>_<hash(params without _meta)>`
 * `_meta` (progress tokens, trace ids) never takes part.
 */
export function rawKeyFor(request: Pick<JsonRpcRequest, 'method' | 'params'>): string {
  const { method, params } = request;
  const base = method.replaceAll('/', '_');
  if (PARAMLESS.has(method)) return base;
  if (method === 'tools/call')
    return `tools_call_${String(params?.name ?? '')}_${argumentsHash(params?.arguments)}${roundSuffix(params)}`;
  if (method === 'prompts/get')
    return `prompts_get_${String(params?.name ?? '')}_${argumentsHash(params?.arguments)}${roundSuffix(params)}`;
  if (LIST_METHODS.has(method))
    return params?.cursor === undefined ? base : `${base}_${hash16(JSON.stringify(params.cursor))}`;
  return `${base}_${hash16(JSON.stringify(withoutMeta(params)))}`;
}

/**
 * What makes a later round of a multi-round call (MRTR): the client's answers (an object) and the server's state (a
 * string). Anything else in those fields (a `null` some clients send on a first round) makes no round.
 */
export function roundOf(params: Record<string, unknown> | undefined): {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
} {
  const round: { inputResponses?: Record<string, unknown>; requestState?: string } = {};
  const answers = params?.inputResponses;
  if (typeof answers === 'object' && answers !== null && !Array.isArray(answers))
    round.inputResponses = answers as Record<string, unknown>;
  if (typeof params?.requestState === 'string') round.requestState = params.requestState;
  return round;
}

/** `_r<hash>` for a retry carrying input responses or request state (MRTR); empty for a first round. */
function roundSuffix(params: Record<string, unknown> | undefined): string {
  const round = roundOf(params);
  if (round.inputResponses === undefined && round.requestState === undefined) return '';
  return `_r${hash16(JSON.stringify(round))}`;
}

/** The key as it appears in file names (see safe-name.ts). */
export const keyFor = (request: Pick<JsonRpcRequest, 'method' | 'params'>): string => safeKey(rawKeyFor(request));

/**
 * What replay answers when a list method has no entry: an empty page, as mcp-rewind does. Tables looked up by a
 * name from the wire or a file are Maps: a plain object answers `constructor` or `__proto__` with its prototype's.
 */
export const EMPTY_LIST_RESULTS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ['tools/list', { tools: [] }],
  ['resources/list', { resources: [] }],
  ['resources/templates/list', { resourceTemplates: [] }],
  ['prompts/list', { prompts: [] }],
]);
/** Methods whose result is always empty: replay can answer them without an entry. */
export const EMPTY_RESULT_METHODS = new Set([
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * JSON with object keys sorted at every level: the same value always gives the same text. Written by hand rather than
 * through JSON.stringify's replacer (twice as fast: the cassette index computes one per entry). Only ever compared
 * with another canonicalJson, never stored.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value) ?? 'null';
}

function canonical(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value); // undefined for undefined and functions
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return canonical((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (canonical(value[i]) ?? 'null');
    return `${text}]`;
  }
  let text = '{';
  for (const key of Object.keys(value).sort()) {
    const item = canonical((value as Record<string, unknown>)[key]);
    if (item !== undefined) text += (text.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + item;
  }
  return `${text}}`;
}

function deletePath(value: unknown, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let cur: unknown = value;
  for (const part of parts)
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
  if (cur !== null && typeof cur === 'object') delete (cur as Record<string, unknown>)[last];
}

/**
 * The loose match key: method + hash of the params in canonical form (key order ignored), `_meta` and the
 * --match-ignore paths (relative to params, e.g. `arguments.timestamp`) removed. Used when the exact
 * (mcp-rewind) key finds nothing.
 */
export function looseKeyFor(
  method: string,
  params: Record<string, unknown> | undefined,
  ignore: readonly string[] = [],
): string {
  const { _meta, ...rest } = params ?? {};
  const value = ignore.length ? structuredClone(rest) : rest;
  for (const path of ignore) deletePath(value, path);
  return `${method}#${hash16(canonicalJson(value))}`;
}

/** The tool name inside a tools/call key written by safeKey (undefined when it was too long and got hashed). */
export function toolNameFromKey(key: string): string | undefined {
  const m = /^tools_call_(.*)_[0-9a-f]{16}(?:_r[0-9a-f]{16})?$/.exec(key);
  if (!m || m[1].includes('~')) return undefined;
  try {
    return decodeURIComponent(
      m[1].replace(/%u([0-9A-F]{4})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
  } catch {
    return undefined;
  }
}

/** Bare entries (mcp-rewind's cached methods) name their method only through the key. */
export const BARE_KEY_METHODS: ReadonlyMap<string, string> = new Map([
  ['initialize', 'initialize'],
  ['ping', 'ping'],
  ['tools_list', 'tools/list'],
  ['resources_list', 'resources/list'],
  ['resources_templates_list', 'resources/templates/list'],
  ['prompts_list', 'prompts/list'],
]);

/** The request a cassette entry answers (method + params), where the entry or its key says it. */
export function requestOfEntry(entry: {
  key: string;
  method?: string;
  params?: Record<string, unknown>;
  name?: string;
  arguments?: unknown;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}): { method: string; params: Record<string, unknown> } | undefined {
  if (entry.key.startsWith('tools_call_')) {
    const name = entry.name ?? toolNameFromKey(entry.key);
    if (name === undefined || entry.arguments === undefined) return undefined;
    const round: Record<string, unknown> = {};
    if (entry.inputResponses !== undefined) round.inputResponses = entry.inputResponses;
    if (entry.requestState !== undefined) round.requestState = entry.requestState;
    return { method: 'tools/call', params: { name, arguments: entry.arguments, ...round } };
  }
  if (entry.method) return { method: entry.method, params: entry.params ?? {} };
  const method = BARE_KEY_METHODS.get(entry.key);
  return method ? { method, params: {} } : undefined;
}

/** The loose key of the request an entry answers (as looseKeyFor gives it for that request); undefined when the entry does not tell its request. */
export function looseKeyOfEntry(
  entry: { key: string; method?: string; params?: Record<string, unknown>; name?: string; arguments?: unknown },
  ignore: readonly string[] = [],
): string | undefined {
  const request = requestOfEntry(entry);
  return request ? looseKeyFor(request.method, request.params, ignore) : undefined;
}

/** What the server sent on the GET stream after an exchange is filed under this prefix and the exchange's key. */
export const FOLLOW_UP_PREFIX = 'after_';

/** The key of what the server sent on the GET stream after the exchange `key` (notifications, client requests). */
export const followUpKey = (key: string): string => safeKey(`${FOLLOW_UP_PREFIX}${key}`);

/** built once: replay looks two of them up on every POST */
const REFUSAL_KEYS = new Map(REFUSAL_KINDS.map((kind) => [kind, `refusal_${kind.replaceAll('-', '_')}`]));
/** Where the recorded refusal of a kind is filed (src/shared/cassette/entry.ts REFUSAL_KINDS). */
export const refusalKey = (kind: RefusalKind): string => REFUSAL_KEYS.get(kind) as string;
