import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { hash16 } from './hash.js';
import { safeKey } from './safe-name.js';

/** mcp-rewind's arguments hash: sha256(JSON.stringify(arguments ?? {})), 16 hex. */
export const argumentsHash = (args: unknown): string => hash16(JSON.stringify(args ?? {}));

/** Paginated list methods: without a cursor they keep mcp-rewind's bare keys (tools_list, resources_list, …). */
const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'tasks/list']);
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
 * - any other method → `<method with / as _>_<hash(params without _meta)>`
 * `_meta` (progress tokens, trace ids) never takes part.
 */
export function rawKeyFor(request: Pick<JsonRpcRequest, 'method' | 'params'>): string {
  const { method, params } = request;
  const base = method.replaceAll('/', '_');
  if (PARAMLESS.has(method)) return base;
  if (method === 'tools/call') return `tools_call_${String(params?.name ?? '')}_${argumentsHash(params?.arguments)}`;
  if (method === 'prompts/get') return `prompts_get_${String(params?.name ?? '')}_${argumentsHash(params?.arguments)}`;
  if (LIST_METHODS.has(method)) return params?.cursor === undefined ? base : `${base}_${hash16(JSON.stringify(params.cursor))}`;
  return `${base}_${hash16(JSON.stringify(withoutMeta(params)))}`;
}

/** The key as it appears in file names (see safe-name.ts). */
export const keyFor = (request: Pick<JsonRpcRequest, 'method' | 'params'>): string => safeKey(rawKeyFor(request));

/** What replay answers when a list method has no entry: an empty page, as mcp-rewind does. */
export const EMPTY_LIST_RESULTS: Record<string, Record<string, unknown>> = {
  'tools/list': { tools: [] },
  'resources/list': { resources: [] },
  'resources/templates/list': { resourceTemplates: [] },
  'prompts/list': { prompts: [] },
};
/** Methods whose result is always empty: replay can answer them without an entry. */
export const EMPTY_RESULT_METHODS = new Set(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);
