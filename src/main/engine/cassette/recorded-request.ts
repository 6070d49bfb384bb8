import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { BARE_KEY_METHODS, toolNameFromKey } from './keys.js';
import { debugFileNames } from './names.js';
import { readCassetteFile, readCassetteFileSync, UnsafeEntryError } from './safe-read.js';
import type { Log } from '../log.js';
import { parseJson as parseLimited } from '../../../shared/json-depth.js';

/**
 * What was asked, for a recorded entry: `verify` sends it again and `export --har` rebuilds a request from it when
 * the debug files are gone. Sources, best first: the entry itself (tools/call name + arguments, the `$rewind`
 * wrapper's method + params), the `<n> <key>.req.json` debug file's body (mcp-rewind's own files), the key.
 */

export interface RecordedRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface RecordedDebug {
  /** `.req.json`: ours is `{ method, url, headers, body }`, mcp-rewind's `{ verb, url, headers, body }` */
  request?: {
    method?: string;
    verb?: string;
    url?: string;
    headers?: Record<string, string | string[]>;
    body?: unknown;
  };
  /** `.res.json`: the raw response body */
  responseBody?: string;
  /** `.res-head.json` */
  responseHead?: { status?: number; headers?: Record<string, string | string[]> };
}

async function readIf(dir: string, name: string, log?: Log): Promise<string | undefined> {
  try {
    return await readCassetteFile(dir, name);
  } catch (error) {
    if (error instanceof UnsafeEntryError) log?.(`cassette: ${error.message}`, 'warn');
    return undefined; // missing (debug files are optional), or the cassette is a single file
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return parseLimited(text);
  } catch {
    return undefined;
  }
}

/** Reads the debug files `<stem>.req.json`, `.res.json`, `.res-head.json` of an exchange; undefined when none exists. */
export async function readDebugFiles(dir: string, stem: string, log?: Log): Promise<RecordedDebug | undefined> {
  const [req, res, head] = await Promise.all(debugFileNames(stem).map((name) => readIf(dir, name, log)));
  return debugOf(req, res, head);
}

/**
 * The same, synchronously, for the debug files a listing showed (`present`: `req`, `res`, `res-head`): an export reads
 * thousands of exchanges, each faster this way (and a missing file is not even tried).
 */
export function readDebugFilesSync(
  dir: string,
  stem: string,
  present: ReadonlySet<string>,
  log?: Log,
): RecordedDebug | undefined {
  const [req, res, head] = debugFileNames(stem).map((name, i) => {
    if (!present.has(['req', 'res', 'res-head'][i])) return undefined;
    try {
      return readCassetteFileSync(dir, name);
    } catch (error) {
      if (error instanceof UnsafeEntryError) log?.(`cassette: ${error.message}`, 'warn');
      return undefined;
    }
  });
  return debugOf(req, res, head);
}

function debugOf(
  req: string | undefined,
  res: string | undefined,
  head: string | undefined,
): RecordedDebug | undefined {
  if (req === undefined && res === undefined && head === undefined) return undefined;
  const request = parseJson(req);
  const responseHead = parseJson(head);
  return {
    request: typeof request === 'object' && request !== null ? (request as RecordedDebug['request']) : undefined,
    responseBody: res,
    responseHead:
      typeof responseHead === 'object' && responseHead !== null
        ? (responseHead as RecordedDebug['responseHead'])
        : undefined,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON-RPC request of a recorded `.req.json` body (a batch: its first request with that method). */
export function requestInBody(body: unknown, method?: string): RecordedRequest | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!isObject(m) || typeof m.method !== 'string' || !('id' in m)) continue;
    if (method !== undefined && m.method !== method) continue;
    return { method: m.method, params: isObject(m.params) ? withoutMeta(m.params) : undefined };
  }
  return undefined;
}

/** The `_meta` of the JSON-RPC request of a recorded `.req.json` body (a 2026-07-28 request's envelope), if it has one. */
export function requestMetaInBody(body: unknown, method?: string): Record<string, unknown> | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!isObject(m) || typeof m.method !== 'string' || !('id' in m) || (method !== undefined && m.method !== method))
      continue;
    return isObject(m.params) && isObject(m.params._meta) ? m.params._meta : undefined;
  }
  return undefined;
}

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta, ...rest } = params;
  return rest;
}

/**
 * The request to send again for an entry, or a reason why it cannot be told (a bare mcp-rewind tools/call result
 * without its .req.json, a shortened key).
 */
export function recordedRequest(entry: CassetteEntry, debugBody?: unknown): RecordedRequest | { unknown: string } {
  if (entry.method === 'tools/call' || entry.key.startsWith('tools_call_')) {
    const fromDebug = requestInBody(debugBody, 'tools/call');
    const name = entry.name ?? (fromDebug?.params?.name as string | undefined) ?? toolNameFromKey(entry.key);
    if (name === undefined) return { unknown: 'the tool name is not recorded and the key was shortened' };
    const args = entry.arguments ?? fromDebug?.params?.arguments;
    if (args === undefined)
      return { unknown: 'the arguments are not recorded (bare mcp-rewind result without its .req.json)' };
    return { method: 'tools/call', params: { name, arguments: args } };
  }
  if (entry.method) return { method: entry.method, params: entry.params };
  const method = BARE_KEY_METHODS.get(entry.key);
  if (method) return requestInBody(debugBody, method) ?? { method };
  const fromDebug = requestInBody(debugBody);
  if (fromDebug) return fromDebug;
  return { unknown: `the key "${entry.key}" does not tell the request` };
}

/** Entries of a store, key by key, keys in recorded order (by their first entry's sequence number). */
export function entriesByKey(store: {
  keys(): Iterable<string>;
  lookup(key: string): readonly CassetteEntry[] | undefined;
}): Array<[string, readonly CassetteEntry[]]> {
  const groups: Array<[string, readonly CassetteEntry[]]> = [];
  for (const key of store.keys()) {
    const list = store.lookup(key);
    if (list?.length) groups.push([key, list]);
  }
  return groups.sort((a, b) => a[1][0].n - b[1][0].n);
}
