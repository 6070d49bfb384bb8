import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { sseEvent } from '../../http/sse.js';

/**
 * The bridge's answer to one request, made in process: what node:http would hand the pipeline for an answer that
 * came over a socket (status, headers, a body that streams, `complete` once it has all arrived) — without the socket,
 * the HTTP framing or the parsing. The pipeline reads it as it reads any upstream answer (relay.ts, pipe.ts).
 */
export class BridgeAnswer extends PassThrough {
  complete = false;

  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
  ) {
    super();
    this.once('end', () => (this.complete = true));
  }

  /** the answer as the pipeline's contract types it (an upstream answer is an IncomingMessage) */
  get asIncoming(): IncomingMessage {
    return this as unknown as IncomingMessage;
  }

  /** still being read: its reader has not gone away, nothing cut it */
  get open(): boolean {
    return !this.destroyed && !this.writableEnded;
  }
}

/** A whole JSON body (an error, a refusal). */
export function jsonAnswer(status: number, body: unknown, headers: IncomingHttpHeaders = {}): BridgeAnswer {
  const text = JSON.stringify(body);
  const answer = new BridgeAnswer(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  answer.end(text);
  return answer;
}

/** A body-less answer (202 for notifications and replies, 200 for a DELETE). */
export function emptyAnswer(status: number, headers: IncomingHttpHeaders = {}): BridgeAnswer {
  const answer = new BridgeAnswer(status, headers);
  answer.end();
  return answer;
}

/** An SSE stream, as the SDK's server transport opens one (its headers, `event: message` events). */
export function sseAnswer(sessionId: string | undefined): BridgeAnswer {
  const headers: IncomingHttpHeaders = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  return new BridgeAnswer(200, headers);
}

/** Writes one message as an SSE event; false when the reader has gone (the message has nowhere to go). */
export function writeEvent(answer: BridgeAnswer, message: JSONRPCMessage): boolean {
  if (!answer.open) return false;
  answer.write(sseEvent(message));
  return true;
}
