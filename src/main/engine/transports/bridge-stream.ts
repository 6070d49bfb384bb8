import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { sendJson } from '../http/sse.js';
import type { Log } from '../log.js';

/** How many messages with nowhere to go a session keeps until its GET stream opens (then the oldest go, logged). */
const HELD_MAX = 1_000;
/** A comment now and then, as the SDK's server transport sends on its GET streams. */
const KEEP_ALIVE_MS = 30_000;

/**
 * A bridge session's GET stream, owned by the bridge rather than the SDK's server transport: a message the server
 * sends outside any request (server-filesystem's `roots/list` the moment it is initialized, a `list_changed`) reaches
 * the client whenever it was sent. The SDK's transport drops such a message when no GET stream is open, and a client
 * opens its GET only after its `notifications/initialized` was answered — by when the server may have spoken already
 * (issue 21 item 2). Here it is held until the stream opens, and while the stream is closed between two GETs.
 */
export class SessionStream {
  private res: ServerResponse | undefined;
  private readonly held: JSONRPCMessage[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly label: () => string,
    private readonly log: Log,
  ) {}

  /** Serves a GET: 406 without text/event-stream in Accept, 409 while one is open (as the SDK), else the stream. */
  open(req: IncomingMessage, res: ServerResponse, sessionId: string): void {
    req.resume();
    if (!(req.headers.accept ?? '').includes('text/event-stream'))
      return sendJson(
        res,
        406,
        errorResponse(null, ErrorCode.InvalidRequest, 'Not Acceptable: Client must accept text/event-stream'),
      );
    if (this.res)
      return sendJson(
        res,
        409,
        errorResponse(null, ErrorCode.InvalidRequest, 'Conflict: Only one SSE stream is allowed per session'),
      );
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'mcp-session-id': sessionId,
    });
    res.flushHeaders();
    this.res = res;
    this.timer = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS).unref();
    res.once('close', () => {
      if (this.res !== res) return;
      this.res = undefined;
      clearInterval(this.timer);
    });
    for (const message of this.held.splice(0)) this.write(res, message);
  }

  /** Sends on the GET stream, or holds the message until one is open. */
  send(message: JSONRPCMessage): void {
    if (this.res) return this.write(this.res, message);
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
    this.res?.end();
    this.res = undefined;
    this.held.length = 0;
  }

  private write(res: ServerResponse, message: JSONRPCMessage): void {
    res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
