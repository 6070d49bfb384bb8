import { STATUS_CODES } from 'node:http';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { entriesByKey, readDebugFiles, recordedRequest, type RecordedDebug } from './recorded-request.js';
import { REDACTED, redactHeaders, redactUrl } from './redact.js';
import { readCassetteFile, UnsafeEntryError } from './safe-read.js';
import { CassetteStore, SINGLE_FILE_FORMAT } from './store.js';

/**
 * `mcp-rewind export`: a cassette folder as one JSON file (which `--cache FILE` replays read-only), or as HAR 1.2
 * built from the debug files. Secrets were redacted at record time; both exports redact again, defensively.
 */

export interface SingleFileCassette {
  format: typeof SINGLE_FILE_FORMAT;
  version: 1;
  exportedAt: string;
  /** each distilled file, verbatim, with its sequence number and key */
  entries: Array<{ n: number; key: string; entry: unknown }>;
}

/** Header-like keys redacted wherever they appear in an exported entry (distilled files should hold none). */
const SECRET_KEY = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|mcp-session-id|x-mimcp-session)$/i;

/** A copy with every `headers` object redacted (redact.ts's rules) and every authorization/cookie-like key replaced. */
export function redactDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) out[k] = REDACTED;
    else if (k.toLowerCase() === 'headers' && v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = redactHeaders(v as Record<string, string | string[]>);
    else out[k] = redactDeep(v);
  }
  return out;
}

const isFile = (path: string): Promise<boolean> => stat(path).then((s) => s.isFile(), () => false);

export interface ExportOptions {
  now?: Date;
  /** warnings: entries refused (symbolic links, unreadable files) */
  log?: (line: string) => void;
}

/** The single-file form of a cassette folder (a single file given instead is re-stamped and redacted again). */
export async function exportSingleFile(path: string, options: ExportOptions = {}): Promise<SingleFileCassette> {
  const now = options.now ?? new Date();
  let entries: SingleFileCassette['entries'];
  if (await isFile(path)) {
    await CassetteStore.open(path, { watch: false, log: options.log }).then((s) => s.close()); // validates the format
    entries = (JSON.parse(await readFile(path, 'utf8')) as SingleFileCassette).entries;
  } else {
    const store = await CassetteStore.open(path, { watch: false, log: options.log });
    store.close();
    entries = [];
    for (const [key, list] of entriesByKey(store)) {
      for (const e of list) {
        try {
          entries.push({ n: e.n, key, entry: JSON.parse(await readCassetteFile(path, e.file)) as unknown });
        } catch (error) {
          if (!(error instanceof UnsafeEntryError)) throw error;
          options.log?.(`cassette: ${error.message}`); // replaced by a link since the store read it
        }
      }
    }
  }
  entries.sort((a, b) => a.n - b.n);
  return { format: SINGLE_FILE_FORMAT, version: 1, exportedAt: now.toISOString(), entries: entries.map((e) => ({ ...e, entry: redactDeep(e.entry) })) };
}

// ---------------------------------------------------------------------------------------------------------------
// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/)

export interface HarHeader {
  name: string;
  value: string;
}
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; httpVersion: string; headers: HarHeader[]; queryString: HarHeader[]; cookies: []; headersSize: number; bodySize: number; postData?: { mimeType: string; text: string } };
  response: { status: number; statusText: string; httpVersion: string; headers: HarHeader[]; cookies: []; content: { size: number; mimeType: string; text: string }; redirectURL: string; headersSize: number; bodySize: number };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  _mcpRewind: { n: number; key?: string; synthetic: boolean };
}
export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[]; comment?: string };
}

function harHeaders(headers: Record<string, string | string[]> | undefined): HarHeader[] {
  const out: HarHeader[] = [];
  for (const [name, value] of Object.entries(redactHeaders(headers ?? {}))) for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: String(v) });
  return out;
}

const header = (headers: HarHeader[], name: string): string | undefined => headers.find((h) => h.name.toLowerCase() === name)?.value;

/** An absolute URL for a recorded one: mcp-rewind wrote the path only (with the Host header beside it). */
function absoluteUrl(url: string | undefined, headers: HarHeader[], fallback: string): string {
  if (!url) return fallback;
  try {
    return redactUrl(new URL(url).href);
  } catch {
    return redactUrl(new URL(url, `http://${header(headers, 'host') ?? 'localhost'}`).href);
  }
}

function body(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

interface Exchange {
  n: number;
  key?: string;
  entry?: CassetteEntry;
  debug?: RecordedDebug;
  mtime?: Date;
}

/** One HAR entry: from the debug files where they exist, else rebuilt from the distilled entry (`_mcpRewind.synthetic`). */
function harEntry(x: Exchange, fallbackUrl: string, now: Date): HarEntry {
  const rebuilt = x.entry ? recordedRequest(x.entry, x.debug?.request?.body) : { unknown: 'no distilled entry' };
  const rpc = 'unknown' in rebuilt ? { jsonrpc: '2.0', id: x.n, method: x.entry?.method ?? '?' } : { jsonrpc: '2.0', id: x.n, ...rebuilt };
  const req = x.debug?.request;
  const reqHeaders = req ? harHeaders(req.headers) : [{ name: 'content-type', value: 'application/json' }, { name: 'accept', value: 'application/json, text/event-stream' }];
  const reqText = req ? body(req.body) : JSON.stringify(rpc);
  const url = absoluteUrl(req?.url, reqHeaders, fallbackUrl);
  const head = x.debug?.responseHead;
  const resHeaders = head ? harHeaders(head.headers) : [{ name: 'content-type', value: 'application/json' }];
  const resText = x.debug?.responseBody ?? (x.entry ? JSON.stringify({ jsonrpc: '2.0', id: x.n, result: x.entry.result }) : '');
  const status = head?.status ?? 200;
  const size = Buffer.byteLength(resText);
  const synthetic = !req || x.debug?.responseBody === undefined;
  const method = req?.method ?? req?.verb ?? 'POST';
  return {
    startedDateTime: new Date(x.entry?.recordedAt ?? x.mtime ?? now).toISOString(),
    time: 0,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: reqHeaders,
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: method === 'GET' || method === 'DELETE' ? 0 : Buffer.byteLength(reqText),
      ...(method === 'GET' || method === 'DELETE' ? {} : { postData: { mimeType: header(reqHeaders, 'content-type') ?? 'application/json', text: reqText } }),
    },
    response: {
      status,
      statusText: STATUS_CODES[status] ?? '',
      httpVersion: 'HTTP/1.1',
      headers: resHeaders,
      cookies: [],
      content: { size, mimeType: header(resHeaders, 'content-type') ?? 'application/json', text: resText },
      redirectURL: '',
      headersSize: -1,
      bodySize: size,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    ...('unknown' in rebuilt && !req ? { comment: `request not recorded: ${rebuilt.unknown}` } : {}),
    _mcpRewind: { n: x.n, key: x.key, synthetic },
  };
}

const DEBUG_FILE = /^(\d+)(?: (.+?))?(\.req|\.res|\.res-head)\.json$/;

/** HAR 1.2 of a cassette: one entry per recorded exchange, in recorded order. */
export async function exportHar(path: string, options: ExportOptions & { creatorVersion?: string } = {}): Promise<Har> {
  const now = options.now ?? new Date();
  const store = await CassetteStore.open(path, { watch: false, log: options.log });
  store.close();
  const exchanges = new Map<string, Exchange>();
  for (const [key, list] of entriesByKey(store)) for (const entry of list) exchanges.set(`${entry.n} ${key}`, { n: entry.n, key, entry });
  if (!(await isFile(path))) {
    // key-less debug files (mcp-rewind's notifications, uncached requests) are exchanges too
    for (const name of await readdir(path)) {
      const m = DEBUG_FILE.exec(name);
      if (!m) continue;
      const stem = m[2] ? `${m[1]} ${m[2]}` : m[1];
      if (!exchanges.has(stem)) exchanges.set(stem, { n: Number(m[1]), key: m[2] });
    }
    for (const [stem, x] of exchanges) {
      x.debug = await readDebugFiles(path, stem, options.log);
      x.mtime = await lstat(join(path, x.entry?.file ?? `${stem}.req.json`)).then((s) => s.mtime, () => undefined);
    }
  }
  const sorted = [...exchanges.values()].filter((x) => x.entry || x.debug?.request).sort((a, b) => a.n - b.n);
  const firstUrl = sorted.map((x) => x.debug?.request?.url).find((u) => u !== undefined && URL.canParse(u));
  const fallbackUrl = firstUrl ? redactUrl(firstUrl) : 'http://localhost/mcp';
  return {
    log: {
      version: '1.2',
      creator: { name: 'mcp-rewind', version: options.creatorVersion ?? '0' },
      entries: sorted.map((x) => harEntry(x, fallbackUrl, now)),
    },
  };
}
