import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Framing } from '../../../shared/cassette/entry.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { parseJson } from '../../../shared/json-depth.js';

/** The raw body kept for the cassette's `.res.json` debug file, at most (a larger one is named, not kept). */
export const DEBUG_BODY_MAX_BYTES = 1024 * 1024;

/**
 * How an `application/json` body carries its messages: undecided until its first line ends; `lines`: one message per
 * line, read as each line ends (a `subscriptions/listen` stream some 2026-07-28 servers send as chunked JSON lines:
 * the body lasts as long as the client listens); `whole`: one document (pretty-printed, or no line break), read at
 * its end.
 */
type JsonBody = 'undecided' | 'lines' | 'whole';

/**
 * Reads the JSON-RPC messages out of an upstream answer while its bytes are relayed unchanged:
 * `text/event-stream` is parsed event by event as it streams, `application/json` line by line when its first line is
 * a message of its own (newline-delimited JSON), else once complete. The raw body is kept when asked, up to
 * `keepRaw` bytes: the debug file of an answer of any size must not cost its size again in memory.
 */
export class ResponseTap {
  private readonly sse?: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private jsonText = '';
  private jsonBody: JsonBody = 'undecided';
  private raw: Buffer[] | undefined;
  private rawBytes = 0;
  private readonly keepRaw: number;
  /** an SSE event carried an id: the client can resume the stream (Last-Event-ID), so an early end is not final */
  sawEventId = false;
  /** the id of the last SSE event: what a client resuming this stream sends as Last-Event-ID */
  lastEventId?: string;
  /** the server's `retry:` hint (ms) */
  retryMs?: number;
  /** the stream opened with a priming event (an id, empty data) before any message */
  primed = false;
  /** that priming event's id */
  primingId?: string;
  /** JSON-RPC messages read so far */
  messages = 0;

  constructor(
    contentType: string | undefined,
    /** each message, with the id of the SSE event that carried it */
    private readonly onMessage: (message: JsonRpcMessage, eventId: string | undefined) => void,
    /** bytes of the raw body to keep (true: all of it) */
    keepRaw: boolean | number,
  ) {
    this.keepRaw = keepRaw === true ? Infinity : keepRaw === false ? 0 : keepRaw;
    if (this.keepRaw > 0) this.raw = [];
    if (contentType?.includes('text/event-stream')) {
      this.sse = createParser({
        onEvent: (event) => {
          if (event.id !== undefined) {
            this.sawEventId = true;
            this.lastEventId = event.id;
            if (!event.data && this.messages === 0) {
              this.primed = true;
              this.primingId = event.id;
            }
          }
          this.emit(event.data, event.id);
        },
        onRetry: (ms) => {
          this.retryMs = ms;
        },
      });
    }
  }

  push(chunk: Buffer): void {
    this.rawBytes += chunk.length;
    if (this.raw && this.rawBytes <= this.keepRaw) this.raw.push(chunk);
    else this.raw = undefined;
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.sse) return this.sse.feed(text);
    this.jsonText += text; // the chunk's bytes are free to go (a large body is not held twice)
    if (this.jsonBody !== 'whole' && text.includes('\n')) this.readLines();
  }

  /** The complete lines of a JSON body so far, each a message; the first one decides whether the body is lines. */
  private readLines(): void {
    const end = this.jsonText.lastIndexOf('\n');
    const lines = this.jsonText.slice(0, end).split('\n');
    const rest = this.jsonText.slice(end + 1);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (!line) continue;
      const parsed = parsedOrUndefined(line);
      if (this.jsonBody === 'undecided') {
        if (typeof parsed !== 'object' || parsed === null) {
          // the first line is not a message of its own: one document, read whole at its end
          this.jsonBody = 'whole';
          this.jsonText = [...lines.slice(i), rest].join('\n');
          return;
        }
        this.jsonBody = 'lines';
      }
      if (parsed !== undefined) this.emitParsed(parsed); // a line that is no JSON is not ours to judge
    }
    this.jsonText = rest;
  }

  end(): void {
    const rest = this.decoder.decode();
    if (this.sse) {
      if (rest) this.sse.feed(rest);
      return;
    }
    const text = this.jsonText + rest;
    this.jsonText = '';
    if (this.jsonBody === 'lines') {
      const last = parsedOrUndefined(text.trim());
      if (last !== undefined) this.emitParsed(last);
    } else if (text) this.emit(text);
  }

  /** a JSON body of newline-delimited messages, its first one read */
  get lines(): boolean {
    return this.jsonBody === 'lines';
  }

  /** The raw body as it came; past `keepRaw` bytes, a line saying how large it was instead. */
  get rawBody(): string {
    if (this.raw) return Buffer.concat(this.raw).toString('utf8');
    if (this.keepRaw === 0) return '';
    return `mcp-rewind: the raw body (${this.rawBytes} bytes) is not kept: over the ${this.keepRaw} bytes kept for debug files; the entry holds the answer\n`;
  }

  private emit(data: string, eventId?: string): void {
    if (!data) return; // priming events (2025-11-25) carry an id and no data
    const parsed = parsedOrUndefined(data);
    if (parsed !== undefined) this.emitParsed(parsed, eventId); // else not ours to judge: relayed as it came
  }

  private emitParsed(parsed: unknown, eventId?: string): void {
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof message === 'object' && message !== null) {
        this.messages++;
        this.onMessage(message as JsonRpcMessage, eventId);
      }
    }
  }

  /** How the answer travelled so far (for the cassette: replay answers in the same framing). */
  framing(): Framing {
    if (!this.sse) return this.jsonBody === 'lines' ? { type: 'json', lines: true } : { type: 'json' };
    const framing: Framing = { type: 'sse' };
    if (this.sawEventId) framing.eventIds = true;
    if (this.retryMs !== undefined) framing.retryMs = this.retryMs;
    if (this.primed) framing.priming = true;
    if (this.primingId) framing.ids = { priming: this.primingId };
    return framing;
  }
}

/** JSON text parsed (depth-checked), or undefined when it is not JSON */
function parsedOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

/** Reads a whole upstream answer into messages (the proxy's own calls: probe, hybrid handshake). */
export function collectMessages(res: IncomingMessage): Promise<JsonRpcMessage[]> {
  const messages: JsonRpcMessage[] = [];
  const tap = new ResponseTap(res.headers['content-type'], (m) => void messages.push(m), false);
  return new Promise((resolve, reject) => {
    res.on('data', (chunk: Buffer) => tap.push(chunk));
    res.on('end', () => {
      tap.end();
      resolve(messages);
    });
    res.on('error', reject);
  });
}
