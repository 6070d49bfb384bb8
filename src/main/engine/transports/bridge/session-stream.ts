import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, errorResponse } from '../../../../shared/jsonrpc.js';
import type { Log } from '../../log.js';
import { jsonAnswer, sseAnswer, writeEvent, type BridgeAnswer } from './answer.js';

/** How many messages with nowhere to go a session keeps until its GET stream opens (then the oldest go, logged). */
const HELD_MAX = 1_000;
/** A comment now and then, as the SDK's server transport sends on its GET streams. */
const KEEP_ALIVE_MS = 30_000;

/**
 * A bridge session's GET stream: a message the server sends outside any request (server-filesystem's `roots/list`
 * the moment it is initialized, a `list_changed`) reaches the client whenever it was sent. A client opens its GET
 * only after its `notifications/initialized` was answered — by when the server may have spoken already (issue 21
 * item 2) — so such a message is held until the stream opens, and while the stream is closed between two GETs.
 */
export class SessionStream {
  private answer: BridgeAnswer | undefined;
  private readonly held: JSONRPCMessage[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly label: () => string,
    private readonly log: Log,
  ) {}

  /** Serves a GET: 406 without text/event-stream in Accept, 409 while one is open (as the SDK), else the stream. */
  open(accept: string, sessionId: string): BridgeAnswer {
    if (!accept.includes('text/event-stream'))
      return jsonAnswer(
        406,
        errorResponse(null, ErrorCode.InvalidRequest, 'Not Acceptable: Client must accept text/event-stream'),
      );
    if (this.answer?.open)
      return jsonAnswer(
        409,
        errorResponse(null, ErrorCode.InvalidRequest, 'Conflict: Only one SSE stream is allowed per session'),
      );
    const answer = sseAnswer(sessionId);
    this.answer = answer;
    clearInterval(this.timer);
    this.timer = setInterval(() => answer.open && answer.write(': keepalive\n\n'), KEEP_ALIVE_MS).unref();
    answer.once('close', () => {
      if (this.answer !== answer) return;
      this.answer = undefined;
      clearInterval(this.timer);
    });
    for (const message of this.held.splice(0)) writeEvent(answer, message);
    return answer;
  }

  /** Sends on the GET stream, or holds the message until one is open. */
  send(message: JSONRPCMessage): void {
    if (this.answer && writeEvent(this.answer, message)) return;
    this.held.push(message);
    if (this.held.length > HELD_MAX) {
      const dropped = this.held.shift() as { method?: string };
      this.log(
        `upstream ${this.label()}: ${HELD_MAX} messages waiting for the client's GET stream: dropped the oldest (${dropped.method ?? 'a message'})`,
        'warn',
      );
    }
  }

  /** Ends the stream with its session. */
  close(): void {
    clearInterval(this.timer);
    if (this.answer?.open) this.answer.end();
    this.answer = undefined;
    this.held.length = 0;
  }
}
