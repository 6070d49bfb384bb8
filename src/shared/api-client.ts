import { framesOf, MAX_PAYLOAD_BYTES, payloadRefusal, utf8Bytes } from './api-frames.js';
import type { CallReply, EventName, EventPayloads, RewindApi, ServerFrame } from './api.js';

/**
 * A client of the contract (src/shared/api.ts), for the renderer and for local programs (src/main/web/ui-link.ts).
 * Two transports, one interface:
 * - Electron: the preload's `window.rewind.call/on` (IPC to the same handler table);
 * - WebSocket: the web shell's /api (src/main/web/web-shell.ts), reconnecting with backoff; the WebSocket class is
 *   the browser's or one given (the `ws` package under Node).
 */

/** 'unauthorized': the shell refused this page's token (it restarted with another one): open the newly printed URL */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed' | 'unauthorized';

export interface RewindClient extends RewindApi {
  readonly transport: 'ipc' | 'websocket';
  status(): ConnectionStatus;
  /** called on every status change; 'open' after a reconnect means events may have been missed: take a snapshot */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  close(): void;
}

/** What the Electron preload exposes (src/preload/index.ts); declared here so the client needs no Electron types. */
export interface IpcBridge {
  call(command: string, input: unknown): Promise<CallReply>;
  on(event: string, listener: (payload: unknown) => void): () => void;
}

export class ApiCallError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

type Listener = (payload: never) => void;

function listenerSet() {
  const listeners = new Map<string, Set<Listener>>();
  return {
    add(event: string, listener: Listener): () => void {
      const set = listeners.get(event) ?? new Set<Listener>();
      listeners.set(event, set);
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(event: string, payload: unknown): void {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          (listener as (p: unknown) => void)(payload);
        } catch (error) {
          console.error(`mcp-rewind: a "${event}" listener failed`, error);
        }
      }
    },
  };
}

/** The Electron adapter: every call is one IPC round trip; the main process answers { ok, output | error }. */
export function createIpcApi(bridge: IpcBridge): RewindClient {
  return {
    transport: 'ipc',
    async call(command, input) {
      const reply = await bridge.call(command, input);
      if (!reply.ok) throw new ApiCallError(command, reply.error.message);
      return reply.output as never;
    },
    on: (event, listener) => bridge.on(event, listener as (payload: unknown) => void),
    status: () => 'open',
    onStatus: () => () => {},
    close: () => {},
  };
}

/** The subset of the WebSocket API used here: the browser's, or the `ws` package's in Node tests. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/** What the shell says of this page's token: accepted, refused, or nothing (the shell is not reachable). */
export type AuthVerdict = 'ok' | 'refused' | 'unreachable';

export interface WebSocketApiOptions {
  url: string;
  /** subprotocols of the handshake; the web shell takes the token as one (see bridgeProtocols); a promise while signing in */
  protocols?: string[] | Promise<string[] | undefined>;
  /** asked when a connection closes before it opened: a refused token ends the retries ('unauthorized') */
  checkAuth?: () => Promise<AuthVerdict>;
  WebSocket?: new (url: string, protocols?: string[]) => WebSocketLike;
  /** first reconnect delay; doubles up to maxDelayMs (with jitter) */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** a call made while disconnected waits this long for the connection, then fails */
  queueTimeoutMs?: number;
}

interface Pending {
  command: string;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
}

interface Queued extends Pending {
  id: number;
  frames: string[];
  timer: ReturnType<typeof setTimeout>;
}

/** A frame from the shell: an event goes to its listeners, a reply settles its pending call. */
function routeFrame(data: unknown, pending: Map<number, Pending>, events: ReturnType<typeof listenerSet>): void {
  let frame: ServerFrame;
  try {
    frame = JSON.parse(String(data)) as ServerFrame;
  } catch {
    console.error('mcp-rewind: unreadable frame from the shell');
    return;
  }
  if ('event' in frame) return events.emit(frame.event, frame.payload);
  const call = pending.get(frame.id);
  if (!call) {
    if (!frame.ok) console.error(`mcp-rewind: ${frame.error.message}`);
    return;
  }
  pending.delete(frame.id);
  if (frame.ok) call.resolve(frame.output);
  else call.reject(new ApiCallError(call.command, frame.error.message));
}

/** The socket closed: every call sent on it fails (its command may or may not have run). */
function rejectLost(pending: Map<number, Pending>): void {
  for (const [id, call] of pending) {
    pending.delete(id);
    call.reject(
      new ApiCallError(
        call.command,
        `the connection to mcp-rewind was lost before "${call.command}" was answered (it may or may not have run)`,
      ),
    );
  }
}

/** Empties the queue of calls not sent yet, each failing with its own message. */
function rejectQueued(queue: Queued[], message: (command: string) => string): void {
  for (const queued of queue.splice(0)) {
    clearTimeout(queued.timer);
    queued.reject(new ApiCallError(queued.command, message(queued.command)));
  }
}

/** Exponential backoff with ±25 % jitter, capped at maxDelay. */
function backoffDelay(attempt: number, minDelay: number, maxDelay: number): number {
  return Math.min(maxDelay, minDelay * 2 ** attempt) * (0.75 + Math.random() / 2);
}

function unreachableMessage(command: string, queueTimeout: number): string {
  return `mcp-rewind is not reachable ("${command}" waited ${Math.round(queueTimeout / 1000)} s for the connection): is \`mcp-rewind ui\` still running?`;
}

/** The browser adapter: JSON frames over one WebSocket (`{ id, command, input }` → ServerFrame), events pushed by the shell. */
export function createWebSocketApi(options: WebSocketApiOptions): RewindClient {
  const Ctor =
    options.WebSocket ?? (globalThis.WebSocket as unknown as new (url: string, protocols?: string[]) => WebSocketLike);
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5_000;
  const queueTimeout = options.queueTimeoutMs ?? 15_000;
  const events = listenerSet();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  const pending = new Map<number, Pending>();
  const queue: Queued[] = [];
  let nextId = 1;
  let socket: WebSocketLike | undefined;
  let status: ConnectionStatus = 'connecting';
  let attempts = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let protocols: string[] | undefined;

  const setStatus = (next: ConnectionStatus): void => {
    if (status === next) return;
    status = next;
    for (const listener of [...statusListeners]) listener(next);
  };

  const refuse = (): void => {
    setStatus('unauthorized');
    rejectQueued(queue, () => UNAUTHORIZED_MESSAGE);
  };

  const connect = (): void => {
    const ws = new Ctor(options.url, protocols);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      attempts = 0;
      setStatus('open');
      for (const queued of queue.splice(0)) {
        clearTimeout(queued.timer);
        pending.set(queued.id, queued);
        for (const frame of queued.frames) ws.send(frame);
      }
    };
    ws.onmessage = (event) => routeFrame(event.data, pending, events);
    ws.onerror = () => {}; // onclose follows and decides
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = undefined;
      rejectLost(pending);
      if (status === 'closed' || status === 'unauthorized') return;
      setStatus('reconnecting');
      const delay = backoffDelay(attempts++, minDelay, maxDelay);
      const again = (): void => {
        if (status === 'reconnecting') retry = setTimeout(connect, delay);
      };
      // refused before it opened: a wrong token (a browser cannot see the handshake's 401), or the shell is down
      if (opened || !options.checkAuth) return again();
      void options.checkAuth().then((verdict) => (verdict === 'refused' ? refuse() : again()), again);
    };
  };
  // calls made meanwhile wait in the queue, as while connecting
  void Promise.resolve(options.protocols).then(
    (given) => {
      if (status === 'closed') return;
      protocols = given;
      if (given === undefined && options.checkAuth)
        refuse(); // no token at all
      else connect();
    },
    () => refuse(),
  );

  return {
    transport: 'websocket',
    call(command, input) {
      return new Promise((resolve, reject) => {
        if (status === 'closed')
          return reject(new ApiCallError(command, `the mcp-rewind client is closed ("${command}" not sent)`));
        if (status === 'unauthorized') return reject(new ApiCallError(command, UNAUTHORIZED_MESSAGE));
        const id = nextId++;
        const text = JSON.stringify({ id, command, input });
        const refusal = text.length > MAX_PAYLOAD_CHARS_CHEAP && payloadRefusal(utf8Bytes(text));
        if (refusal) return reject(new ApiCallError(command, `"${command}" not sent: ${refusal}`));
        const frames = framesOf(id, text);
        const call = { command, resolve: resolve as (output: unknown) => void, reject };
        if (socket && socket.readyState === 1 && status === 'open') {
          pending.set(id, call);
          for (const frame of frames) socket.send(frame);
          return;
        }
        const timer = setTimeout(() => {
          const at = queue.findIndex((q) => q.id === id);
          if (at >= 0) queue.splice(at, 1);
          reject(new ApiCallError(command, unreachableMessage(command, queueTimeout)));
        }, queueTimeout);
        queue.push({ ...call, id, frames, timer });
      });
    },
    on: <E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void) =>
      events.add(event, listener as Listener),
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => void statusListeners.delete(listener);
    },
    close() {
      setStatus('closed');
      clearTimeout(retry);
      rejectQueued(queue, (command) => `the mcp-rewind client was closed before "${command}" was sent`);
      const ws = socket;
      ws?.close();
      ws?.onclose?.({});
    },
  };
}

/** below this many characters a command's text cannot exceed the payload limit (3 UTF-8 bytes a character at most) */
const MAX_PAYLOAD_CHARS_CHEAP = MAX_PAYLOAD_BYTES / 3;

export const UNAUTHORIZED_MESSAGE =
  'this page is not signed in to mcp-rewind: run `mcp-rewind ui` and open the link it prints (a link works once, within a minute)';

/** The handshake's subprotocols: the API's, then the token (src/main/web/web-shell.ts reads it there). */
export function bridgeProtocols(token: string): string[] {
  return ['mcp-rewind.v1', `mcp-rewind.token.${token}`];
}
