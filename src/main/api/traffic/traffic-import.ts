import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { SourceInfo } from '../../../shared/api.js';
import {
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../../shared/jsonrpc.js';
import { EXCHANGE_FINALS, type ExchangeEvent, type ExchangeFinal } from '../../../shared/traffic.js';
import { keyFor } from '../../engine/cassette/keys.js';
import { entriesByKey, readDebugFiles, recordedRequest } from '../../engine/cassette/recorded-request.js';
import { REDACTED } from '../../engine/redact.js';
import { messagesOfBody } from '../../engine/cassette/served-body.js';
import { SINGLE_FILE_FORMAT } from '../../engine/cassette/persist/single-file.js';
import { CassetteStore } from '../../engine/cassette/store.js';
import { jsonErrorMessage } from '../../engine/cassette/safe-read.js';
import { JsonDepthError, parseJson } from '../../../shared/json-depth.js';
import { getOwn, setOwn } from '../../../shared/own.js';

/**
 * Opens a HAR file, a single-file cassette or a cassette folder as timeline exchanges (a read-only source: offline
 * inspection of a CI run's cassette, or of a HAR a browser-based MCP client saved). What is not an MCP exchange (a
 * GET stream, a non-JSON body, a server notification filed after an exchange) is skipped and said so.
 */

export interface ImportedTraffic {
  kind: SourceInfo['kind'];
  name: string;
  path: string;
  events: ExchangeEvent[];
  skipped: string[];
}

/** HAR files and single-file cassettes larger than this are refused (they are read whole) */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const MAX_SKIPPED_LISTED = 20;

type Headers = Record<string, string | string[]>;

function exchangeOf(
  request: JsonRpcRequest,
  response: JsonRpcResponse | undefined,
  more: Partial<ExchangeEvent>,
): ExchangeEvent {
  return {
    seq: 0,
    method: request.method,
    tool: request.method === 'tools/call' ? String(request.params?.name ?? '') : undefined,
    key: keyFor(request),
    source: 'upstream',
    cassette: 'none',
    request,
    stream: [],
    response,
    startedAt: 0,
    durationMs: 0,
    ...more,
  };
}

interface HarEntryIn {
  startedDateTime?: string;
  time?: number;
  request?: {
    method?: string;
    url?: string;
    headers?: Array<{ name: string; value: string }>;
    postData?: { text?: string; mimeType?: string };
  };
  response?: {
    status?: number;
    headers?: Array<{ name: string; value: string }>;
    content?: { text?: string; mimeType?: string; encoding?: string };
    /** why there is no answer: Chrome DevTools ("net::ERR_ABORTED"), HTTP Toolkit, mcp-rewind's own export */
    _error?: string | null;
  };
  _mcpRewind?: { synthetic?: boolean; final?: string };
}

function headerMap(list: Array<{ name: string; value: string }> | undefined): Headers {
  const out: Headers = {};
  for (const { name, value } of list ?? []) {
    const key = name.toLowerCase();
    const had = getOwn(out, key);
    setOwn(out, key, had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]);
  }
  return out;
}

/**
 * How an entry without a JSON-RPC answer ended: nothing in a file is still on its way. mcp-rewind's own export says it
 * (`_mcpRewind.final`); another tool's says at most why (`_error`, status 0 for an aborted request).
 */
function unansweredEnd(entry: HarEntryIn): Pick<ExchangeEvent, 'final' | 'finalReason'> {
  const saved = entry._mcpRewind?.final;
  const status = entry.response?.status ?? 0;
  const final: ExchangeFinal = EXCHANGE_FINALS.includes(saved as ExchangeFinal)
    ? (saved as ExchangeFinal)
    : status >= 400
      ? 'http-error'
      : 'client-gone';
  const why = entry.response?._error;
  return { final, finalReason: why || `the file holds no answer to it (HTTP ${status})` };
}

/** HAR 1.2: each POST whose body holds JSON-RPC requests gives one exchange per request (answers matched by id). */
export function eventsOfHar(har: unknown): { events: ExchangeEvent[]; skipped: string[] } {
  const entries = (har as { log?: { entries?: unknown } })?.log?.entries;
  if (!Array.isArray(entries)) throw new Error('not a HAR file: no log.entries');
  const events: ExchangeEvent[] = [];
  const skipped: string[] = [];
  (entries as HarEntryIn[]).forEach((entry, i) => {
    const what = `entry ${i + 1} (${entry?.request?.method ?? '?'} ${entry?.request?.url ?? '?'})`;
    const text = entry?.request?.postData?.text;
    if (entry?.request?.method !== 'POST' || typeof text !== 'string')
      return void skipped.push(`${what}: not a POST with a body`);
    let sent: JsonRpcMessage[];
    let answered: JsonRpcMessage[];
    try {
      sent = messagesOfBody(text, 'application/json');
      const content = entry.response?.content;
      const body =
        content?.encoding === 'base64'
          ? Buffer.from(content.text ?? '', 'base64').toString('utf8')
          : (content?.text ?? '');
      answered = messagesOfBody(body, content?.mimeType);
    } catch (error) {
      return void skipped.push(`${what}: not JSON-RPC (${(error as Error).message})`);
    }
    const requests = sent.filter(isRequest);
    if (requests.length === 0) return void skipped.push(`${what}: no JSON-RPC request (a notification or a reply)`);
    const http = entry.response?.status
      ? { status: entry.response.status, headers: headerMap(entry.response.headers) }
      : undefined;
    const requestHeaders = headerMap(entry.request.headers);
    // an initialize is sent without a session: the server names it in the answer's headers
    const session = requestHeaders['mcp-session-id'] ?? http?.headers['mcp-session-id'];
    const sessionId = typeof session === 'string' && session !== REDACTED ? session : undefined;
    const protocolVersion = requestHeaders['mcp-protocol-version'];
    const startedAt = Date.parse(entry.startedDateTime ?? '') || 0;
    const others = answered.filter((m) => !isResponse(m) || !requests.some((r) => r.id === m.id));
    for (const request of requests) {
      const response = answered.find((m): m is JsonRpcResponse => isResponse(m) && m.id === request.id);
      events.push(
        exchangeOf(request, response, {
          sessionId,
          startedAt,
          durationMs: typeof entry.time === 'number' && entry.time >= 0 ? entry.time : 0,
          // messages that answer no request of this POST streamed before the answer; with several requests, the first gets them
          stream: request === requests[0] ? others : [],
          source: entry._mcpRewind?.synthetic ? 'cache' : 'upstream',
          http,
          protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : undefined,
          ...(response ? {} : unansweredEnd(entry)),
        }),
      );
    }
  });
  return { events, skipped };
}

/** A cassette (folder or single file): one exchange per recorded entry, answered by the cassette. */
async function eventsOfCassette(
  path: string,
  folder: boolean,
): Promise<{ events: ExchangeEvent[]; skipped: string[] }> {
  const skipped: string[] = [];
  const store = await CassetteStore.open(path, {
    watch: false,
    log: (line) => void skipped.push(line.replace(/^cassette: /, '')),
  });
  store.close();
  const events: ExchangeEvent[] = [];
  for (const [key, list] of entriesByKey(store)) {
    for (const entry of list) {
      if (key.startsWith('after_')) {
        skipped.push(
          `${entry.file}: a server notification filed after an exchange (replay pushes it on the GET stream)`,
        );
        continue;
      }
      const debug = folder ? await readDebugFiles(path, `${entry.n} ${key}`) : undefined;
      const asked = recordedRequest(entry, debug?.request?.body);
      if ('unknown' in asked) {
        skipped.push(`${entry.file}: ${asked.unknown}`);
        continue;
      }
      const request: JsonRpcRequest = {
        jsonrpc: '2.0',
        id: entry.n,
        method: asked.method,
        ...(asked.params ? { params: asked.params } : {}),
      };
      const head = debug?.responseHead;
      events.push(
        exchangeOf(
          request,
          // a recorded error is answered as the error it was (its `result` is {})
          entry.error
            ? { jsonrpc: '2.0', id: entry.n, error: entry.error }
            : { jsonrpc: '2.0', id: entry.n, result: entry.result },
          {
            key,
            source: 'cache',
            cassette: 'hit',
            ...(entry.protocolVersion ? { protocolVersion: entry.protocolVersion } : {}),
            stream: (entry.stream ?? []) as unknown as JsonRpcMessage[],
            startedAt: Date.parse(entry.recordedAt ?? '') || 0,
            http: head?.status ? { status: head.status, headers: head.headers ?? {} } : undefined,
          },
        ),
      );
    }
  }
  return { events: events.sort((a, b) => a.startedAt - b.startedAt), skipped };
}

/** Reads a HAR file, a single-file cassette or a cassette folder; throws with what the path is not. */
export async function importTraffic(path: string, cwd = process.cwd()): Promise<ImportedTraffic> {
  const full = resolve(cwd, path.trim());
  const info = await stat(full).catch(() => undefined);
  if (!info) throw new Error(`path: no such file or folder ${full}`);
  const name = basename(full);
  const limit = (found: {
    events: ExchangeEvent[];
    skipped: string[];
  }): { events: ExchangeEvent[]; skipped: string[] } => {
    // nothing readable: the open fails (naming why), rather than leave an empty source listed and kept
    if (found.events.length === 0 && found.skipped.length > 0)
      throw new Error(
        `path: cannot open ${full}: no exchange could be read (${found.skipped.slice(0, 3).join('; ')}${found.skipped.length > 3 ? '; …' : ''})`,
      );
    return {
      events: found.events,
      skipped:
        found.skipped.length > MAX_SKIPPED_LISTED
          ? [...found.skipped.slice(0, MAX_SKIPPED_LISTED), `… and ${found.skipped.length - MAX_SKIPPED_LISTED} more`]
          : found.skipped,
    };
  };
  if (info.isDirectory()) return { kind: 'folder', name, path: full, ...limit(await eventsOfCassette(full, true)) };
  if (!info.isFile()) throw new Error(`path: ${full} is neither a file nor a folder`);
  if (info.size > MAX_FILE_BYTES) throw new Error(`path: ${full} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
  let data: unknown;
  try {
    data = parseJson(await readFile(full, 'utf8'));
  } catch (error) {
    if (error instanceof JsonDepthError)
      throw new Error(`path: cannot open ${full}: ${error.message}`, { cause: error });
    throw new Error(
      `path: ${full} is not JSON (${jsonErrorMessage(error)}); open a HAR file, a single-file cassette or a cassette folder`,
      { cause: error },
    );
  }
  if ((data as { format?: unknown })?.format === SINGLE_FILE_FORMAT)
    return { kind: 'file', name, path: full, ...limit(await eventsOfCassette(full, false)) };
  if (Array.isArray((data as { log?: { entries?: unknown } })?.log?.entries))
    return { kind: 'har', name, path: full, ...limit(eventsOfHar(data)) };
  throw new Error(
    `path: ${full} is neither a HAR file (log.entries) nor a single-file cassette (format "${SINGLE_FILE_FORMAT}")`,
  );
}
