import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Framing } from '../../../shared/cassette/entry.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { parseJson } from '../../../shared/json-depth.js';

/** The raw body kept for the cassette's `.res.json` debug file, at most (a larger one is named, not kept). */
export const DEBUG_BODY_MAX_BYTES = 1024 * 1024;

/**
 * Reads the JSON-RPC messages out of an upstream answer while its bytes are relayed unchanged:
 * `text/event-stream` is parsed event by event as it streams, `application/json` once complete. The raw body is kept
 * when asked, up to `keepRaw` bytes: the debug file of an answer of any size must not cost its size again in memory.
 */
export class ResponseTap {
  private readonly sse?: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private jsonText = '';
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
    if (this.sse) this.sse.feed(text);
    else this.jsonText += text; // the chunk's bytes are free to go (a large body is not held twice)
  }

  end(): void {
    const rest = this.decoder.decode();
    if (this.sse) {
      if (rest) this.sse.feed(rest);
      return;
    }
    const text = this.jsonText + rest;
    this.jsonText = '';
    if (text) this.emit(text);
  }

  /** The raw body as it came; past `keepRaw` bytes, a line saying how large it was instead. */
  get rawBody(): string {
    if (this.raw) return Buffer.concat(this.raw).toString('utf8');
    if (this.keepRaw === 0) return '';
    return `mcp-rewind: the raw body (${this.rawBytes} bytes) is not kept: over the ${this.keepRaw} bytes kept for debug files; the entry holds the answer\n`;
  }

  private emit(data: string, eventId?: string): void {
    if (!data) return; // priming events (2025-11-25) carry an id and no data
    let parsed: unknown;
    try {
      parsed = parseJson(data);
    } catch {
      return; // not ours to judge: the bytes were relayed as they came
    }
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof message === 'object' && message !== null) {
        this.messages++;
        this.onMessage(message as JsonRpcMessage, eventId);
      }
    }
  }

  /** How the answer travelled so far (for the cassette: replay answers in the same framing). */
  framing(): Framing {
    if (!this.sse) return { type: 'json' };
    const framing: Framing = { type: 'sse' };
    if (this.sawEventId) framing.eventIds = true;
    if (this.retryMs !== undefined) framing.retryMs = this.retryMs;
    if (this.primed) framing.priming = true;
    if (this.primingId) framing.ids = { priming: this.primingId };
    return framing;
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
