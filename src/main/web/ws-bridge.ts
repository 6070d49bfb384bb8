import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { EVENT_NAMES, type ServerFrame } from '../../shared/api.js';
import { MAX_FRAME_BYTES } from '../../shared/api-frames.js';
import { MAX_FILE_JSON_DEPTH, tooDeep } from '../../shared/json-depth.js';
import type { ApiHandlers } from '../api/handlers.js';
import { isPart, PartAssembler } from './frame-parts.js';

/**
 * The browser shell's WebSocket bridge at /api: the UI↔engine contract (src/shared/api.ts) as frames — a request
 * `{ id, command, input }` gets `{ id, ok, output | error }`, and every engine event goes to every client as
 * `{ event, payload }`. A command bigger than a frame comes in parts (src/shared/api-frames.ts), joined here. Who may
 * connect is the shell's to decide (web-shell.ts); this side carries the frames.
 */

export { MAX_FRAME_BYTES };
/** the subprotocol the page asks for (and gets); the token rides beside it as `mcp-rewind.token.<token>` */
export const API_PROTOCOL = 'mcp-rewind.v1';
export const TOKEN_PROTOCOL_PREFIX = 'mcp-rewind.token.';
/** a client that falls this far behind on events is dropped (it reconnects and takes a snapshot) */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

/** Answers a refused WebSocket handshake with a plain HTTP error (the reason goes in the body, never the status line). */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
    );
  socket.destroy();
}

/** the handler table rejects with ApiError objects `{ message }`; anything else thrown is reported by its message too */
function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  return String(error);
}

type Parsed = { id: number; command: string; input: unknown } | { id: number; problem: string } | undefined;

/**
 * A request frame's fields, or what is wrong with it (answered with its id when it has one, else -1); undefined for
 * a part of a larger command that is not complete yet.
 */
function parseFrame(data: RawData, isBinary: boolean, parts: PartAssembler): Parsed {
  if (isBinary) return { id: -1, problem: 'malformed frame: expected a text frame with JSON { id, command, input }' };
  return parseText(data.toString(), parts);
}

function parseText(text: string, parts?: PartAssembler): Parsed {
  let frame: unknown;
  try {
    frame = JSON.parse(text); // any depth parses safely; what walks it afterwards recurses (checked below)
  } catch {
    return { id: -1, problem: 'malformed frame: not JSON' };
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame))
    return { id: -1, problem: 'malformed frame: expected an object { id, command, input }' };
  const { id, command, input } = frame as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id))
    return { id: -1, problem: 'malformed frame: "id" must be an integer' };
  if (parts && isPart(frame as Record<string, unknown>)) {
    const joined = parts.add(id, frame as Record<string, unknown>);
    if (joined === undefined || 'problem' in joined) return joined && { id, problem: joined.problem };
    const whole = parseText(joined.text); // its parts cannot hold parts
    return whole && !('problem' in whole) && whole.id !== id
      ? { id, problem: 'malformed part: the joined command has another id' }
      : whole;
  }
  if (typeof command !== 'string' || command === '')
    return { id, problem: 'malformed frame: "command" must be a command name' };
  if (tooDeep(text, MAX_FILE_JSON_DEPTH))
    return { id, problem: `malformed frame: JSON nested deeper than ${MAX_FILE_JSON_DEPTH} levels` };
  return { id, command, input };
}

export class ApiBridge {
  private readonly clients = new Set<WebSocket>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    // the page asks for [API_PROTOCOL, token protocol]: answer with the first (never echo the token back)
    handleProtocols: (protocols) => (protocols.has(API_PROTOCOL) ? API_PROTOCOL : false),
  });
  private readonly unsubscribe: Array<() => void>;

  constructor(
    private readonly handlers: ApiHandlers,
    private readonly log: (line: string) => void,
  ) {
    this.unsubscribe = EVENT_NAMES.map((event) =>
      handlers.on(event, (payload) => this.broadcast({ event, payload } satisfies ServerFrame)),
    );
  }

  /** connected clients */
  get size(): number {
    return this.clients.size;
  }

  /** Takes an admitted handshake over: from here on the socket speaks frames. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws));
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe) off();
    for (const ws of this.clients) ws.terminate();
    await new Promise<void>((done) => this.wss.close(() => done()));
  }

  private connected(ws: WebSocket): void {
    this.clients.add(ws);
    const parts = new PartAssembler();
    ws.on(
      'message',
      (data, isBinary) =>
        void this.answer(ws, parseFrame(data, isBinary, parts)).catch((error: Error) =>
          this.log(`web shell: ${error.stack ?? error.message}`),
        ),
    );
    ws.on('error', (error) => this.log(`web shell: WebSocket error: ${error.message}`)); // e.g. a frame over maxPayload (closed with 1009)
    ws.on('close', () => {
      this.clients.delete(ws);
      parts.clear();
    });
  }

  private async answer(ws: WebSocket, frame: Parsed): Promise<void> {
    if (frame === undefined) return; // a part: the command runs once its last part came
    if ('problem' in frame) return this.send(ws, { id: frame.id, ok: false, error: { message: frame.problem } });
    try {
      this.send(ws, { id: frame.id, ok: true, output: await this.handlers.call(frame.command, frame.input ?? {}) });
    } catch (error) {
      this.send(ws, { id: frame.id, ok: false, error: { message: messageOf(error) } });
    }
  }

  private send(ws: WebSocket, frame: ServerFrame): void {
    if (ws.readyState !== ws.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (error) {
      if (!('id' in frame))
        return this.log(`web shell: cannot serialize a ${frame.event} event: ${(error as Error).message}`);
      text = JSON.stringify({
        id: frame.id,
        ok: false,
        error: { message: `the answer could not be serialized: ${(error as Error).message}` },
      });
    }
    ws.send(text);
  }

  private broadcast(frame: ServerFrame): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify(frame);
    for (const ws of this.clients) {
      if (ws.readyState !== ws.OPEN) continue;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        this.log('web shell: a client fell too far behind on events; dropping it (it will reconnect)');
        ws.terminate();
        continue;
      }
      ws.send(text);
    }
  }
}
