import { STATUS_CODES } from 'node:http';
import type { ExchangeFinal } from '../../../../shared/traffic.js';
import { recordedRequest, type RecordedDebug } from '../recorded-request.js';
import { redactHeaders, redactUrl } from '../../redact.js';
import { servedBody } from '../served-body.js';
import { jsonItem } from './json-stream.js';
import type { EntryName, PersistedExchange, Persister, Sink } from './persister.js';

// ---------------------------------------------------------------------------------------------------------------
// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/)

export interface HarHeader {
  name: string;
  value: string;
}
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: HarHeader[];
    queryString: HarHeader[];
    cookies: [];
    headersSize: number;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: HarHeader[];
    cookies: [];
    content: { size: number; mimeType: string; text: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    /** why there is no answer (as Chrome writes a failed request's): the upstream's refusal, a cancel, a timeout */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  /** `edited`: the distilled entry was changed after recording, so the response is rebuilt from it (what replay serves) */
  _mcpRewind: { n: number; key?: string; synthetic: boolean; edited?: boolean; final?: ExchangeFinal };
}
export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[]; comment?: string };
}

/** Headers as HAR lists them (one per value), secrets redacted. */
export function harHeaders(headers: Record<string, string | string[]> | undefined): HarHeader[] {
  const out: HarHeader[] = [];
  for (const [name, value] of Object.entries(redactHeaders(headers ?? {})))
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: String(v) });
  return out;
}

/** What one HAR entry says; the rest is HAR's fixed shape (HTTP/1.1, no cookies, sizes unknown). */
export interface HarExchange {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    headers: HarHeader[];
    queryString: HarHeader[];
    body?: { mimeType: string; text: string };
  };
  /** error: why there is no answer (HAR's `_error`) */
  response: { status: number; headers: HarHeader[]; mimeType: string; text: string; error?: string };
  timings: HarEntry['timings'];
  comment?: string;
  meta: HarEntry['_mcpRewind'];
}

/** One HAR entry. */
export function harEntry({ request, response, ...x }: HarExchange): HarEntry {
  const size = Buffer.byteLength(response.text);
  return {
    startedDateTime: x.startedDateTime,
    time: x.time,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: request.headers,
      queryString: request.queryString,
      cookies: [],
      headersSize: -1,
      bodySize: request.body ? Buffer.byteLength(request.body.text) : 0,
      ...(request.body ? { postData: request.body } : {}),
    },
    response: {
      status: response.status,
      statusText: STATUS_CODES[response.status] ?? '',
      httpVersion: 'HTTP/1.1',
      headers: response.headers,
      cookies: [],
      content: { size, mimeType: response.mimeType, text: response.text },
      redirectURL: '',
      headersSize: -1,
      bodySize: size,
      ...(response.error ? { _error: response.error } : {}),
    },
    cache: {},
    timings: x.timings,
    ...(x.comment ? { comment: x.comment } : {}),
    _mcpRewind: x.meta,
  };
}

/**
 * The one writer of a HAR document: entries go into the sink one at a time, as the text `JSON.stringify(har, null,
 * 2)` and a newline would be, so an export of any size streams.
 */
export class HarWriter {
  private written = 0;

  constructor(
    private readonly sink: Sink,
    private readonly creatorVersion = '0',
  ) {}

  async begin(): Promise<void> {
    const creator = JSON.stringify({ name: 'mcp-rewind', version: this.creatorVersion }, null, 2).replaceAll(
      '\n',
      '\n    ',
    );
    await this.sink.write(`{\n  "log": {\n    "version": "1.2",\n    "creator": ${creator},\n    "entries": [`);
  }

  async add(entry: HarEntry): Promise<void> {
    await this.sink.write(jsonItem(this.written++ === 0, 3, entry));
  }

  /** Closes the document; answers how many entries it holds. */
  async end(): Promise<number> {
    await this.sink.write(this.written ? '\n    ]\n  }\n}\n' : ']\n  }\n}\n');
    return this.written;
  }
}

const header = (headers: HarHeader[], name: string): string | undefined =>
  headers.find((h) => h.name.toLowerCase() === name)?.value;

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

/** One HAR entry of a recorded exchange: from its debug files where they exist, else rebuilt from the distilled entry (`_mcpRewind.synthetic`). */
function recordedHarEntry(x: PersistedExchange & { debug?: RecordedDebug }, fallbackUrl: string, now: Date): HarEntry {
  const rebuilt = x.entry ? recordedRequest(x.entry, x.debug?.request?.body) : { unknown: 'no distilled entry' };
  const rpc =
    'unknown' in rebuilt
      ? { jsonrpc: '2.0', id: x.n, method: x.entry?.method ?? '?' }
      : { jsonrpc: '2.0', id: x.n, ...rebuilt };
  const req = x.debug?.request;
  const reqHeaders = req
    ? harHeaders(req.headers)
    : [
        { name: 'content-type', value: 'application/json' },
        { name: 'accept', value: 'application/json, text/event-stream' },
      ];
  const url = absoluteUrl(req?.url, reqHeaders, fallbackUrl);
  const head = x.debug?.responseHead;
  const resHeaders = head ? harHeaders(head.headers) : [{ name: 'content-type', value: 'application/json' }];
  const served = servedBody(x.entry, x.debug?.responseBody, x.n);
  const answer = x.entry?.error ? { error: x.entry.error } : { result: x.entry?.result };
  const method = req?.method ?? req?.verb ?? 'POST';
  const hasBody = method !== 'GET' && method !== 'DELETE';
  return harEntry({
    startedDateTime: new Date(x.entry?.recordedAt ?? x.mtime ?? now).toISOString(),
    time: 0,
    request: {
      method,
      url,
      headers: reqHeaders,
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      body: hasBody
        ? {
            mimeType: header(reqHeaders, 'content-type') ?? 'application/json',
            text: req ? body(req.body) : JSON.stringify(rpc),
          }
        : undefined,
    },
    response: {
      status: head?.status ?? x.entry?.status ?? 200,
      headers: resHeaders,
      mimeType: header(resHeaders, 'content-type') ?? 'application/json',
      text:
        served?.text ??
        (x.entry ? JSON.stringify({ jsonrpc: '2.0', id: x.entry.refusal ? null : x.n, ...answer }) : ''),
    },
    timings: { send: 0, wait: 0, receive: 0 },
    comment: served?.rebuilt
      ? 'response rebuilt from the distilled entry, which was edited after recording (what replay serves)'
      : 'unknown' in rebuilt && !req
        ? `request not recorded: ${rebuilt.unknown}`
        : undefined,
    meta: {
      n: x.n,
      key: x.key,
      synthetic: !req || x.debug?.responseBody === undefined,
      ...(served?.rebuilt ? { edited: true } : {}),
    },
  });
}

/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as a persister: export appends every recorded exchange in
 * recorded order and each becomes one HAR entry written to the sink at once — from its debug files where they exist,
 * else rebuilt from the distilled entry (`_mcpRewind.synthetic`). Headers are redacted again, defensively. The text
 * is what `JSON.stringify(har, null, 2)` prints, written piece by piece. A HAR is not read back.
 */
export class HarPersister implements Persister {
  readonly format = 'har' as const;
  readonly writable = true;
  private readonly writer: HarWriter;
  private synthetic = 0;

  /** `fallbackUrl`: the URL of entries rebuilt without a recorded request (the first recorded absolute URL) */
  constructor(
    readonly location: string,
    sink: Sink,
    private readonly options: {
      creatorVersion?: string;
      now?: Date;
      fallbackUrl?: string;
      inspect?: (entry: HarEntry) => void;
    } = {},
  ) {
    this.writer = new HarWriter(sink, options.creatorVersion);
  }

  async scan(): Promise<EntryName[]> {
    throw new Error(`${this.location}: a HAR file is an export; replay a cassette folder or a single-file cassette`);
  }

  read(): undefined {
    return undefined;
  }

  begin(): Promise<void> {
    return this.writer.begin();
  }

  async append(exchange: PersistedExchange): Promise<void> {
    if (!exchange.entry && !exchange.debug?.request) return;
    const entry = recordedHarEntry(
      exchange as PersistedExchange & { debug?: RecordedDebug },
      this.options.fallbackUrl ?? 'http://localhost/mcp',
      this.options.now ?? new Date(),
    );
    if (entry._mcpRewind.synthetic) this.synthetic++;
    this.options.inspect?.(entry);
    await this.writer.add(entry);
  }

  /** Closes the document; answers how many entries it holds, and how many were rebuilt from distilled entries. */
  async end(): Promise<{ entries: number; synthetic: number }> {
    return { entries: await this.writer.end(), synthetic: this.synthetic };
  }
}
