import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '../../../../shared/jsonrpc.js';
import type { Session } from '../core/session.js';

/** An SDK Transport as the pipeline uses one (both SDK generations fit it: src/lib/transport.ts). */
export interface MessageTransport {
  start(): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each SDK passes its own message and option types
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assignable from and to both SDKs' generic callback
  onmessage?: ((message: any, extra?: any) => void) | undefined;
}

/** How long the proxy's own initialize of a hybrid upstream may take. */
const HANDSHAKE_MS = 30_000;

/**
 * The upstream of a message-level pipeline (message-planner.ts): a wrapped transport (wrapTransport), or a stdio
 * child (stdio-proxy.ts), started only when something must go to the server (never in replay), as the endpoint's
 * owned sessions do it over HTTP (pipeline/upstream/upstream-session.ts): after a replayed initialize, the first request the
 * cassette misses (hybrid) opens an MCP session upstream with the client's own initialize params first.
 */
export class UpstreamSession {
  started = false;
  private starting?: Promise<void>;
  private closed = false;
  /** the server has an MCP session: the client's initialize went to it, or the proxy's own did */
  private initialized = false;
  private opening?: Promise<void>;
  /** answers to the proxy's own requests (its initialize), by id: never shown to the client */
  private readonly own = new Map<string, (response: JsonRpcResponse) => void>();
  private nextId = 0;

  constructor(
    private readonly inner: MessageTransport,
    private readonly onMessage: (message: unknown) => void,
    private readonly events: { onclose: () => void; onerror: (error: Error) => void },
  ) {}

  start(): Promise<void> {
    return (this.starting ??= (async () => {
      this.inner.onmessage = (message: JsonRpcMessage) => this.receive(message);
      this.inner.onclose = () => {
        this.closed = true;
        this.events.onclose();
      };
      this.inner.onerror = (error: Error) => this.events.onerror(error);
      await this.inner.start();
      this.started = true;
    })());
  }

  private receive(message: JsonRpcMessage): void {
    const id = 'method' in message ? undefined : message.id;
    const mine = typeof id === 'string' ? this.own.get(id) : undefined;
    if (mine) {
      this.own.delete(id as string);
      return mine(message as JsonRpcResponse);
    }
    this.onMessage(message);
  }

  /** Before a request goes to the server: the transport started, and the server initialized (with the client's params). */
  async open(request: JsonRpcRequest, session: Session | undefined): Promise<void> {
    await this.start();
    if (request.method === 'initialize') {
      this.initialized = true;
      return;
    }
    if (this.initialized || !session?.initParams) return;
    const params = session.initParams;
    await (this.opening ??= this.handshake(params).catch((error: Error) => {
      this.opening = undefined; // the next miss tries again
      throw error;
    }));
  }

  private async handshake(params: Record<string, unknown>): Promise<void> {
    const id = `rewind-init-${this.nextId++}`;
    const answered = new Promise<JsonRpcResponse | undefined>((resolve) => {
      this.own.set(id, resolve);
      setTimeout(() => resolve(undefined), HANDSHAKE_MS).unref();
    });
    await this.inner.send({ jsonrpc: '2.0', id, method: 'initialize', params });
    const answer = await answered;
    this.own.delete(id);
    if (!answer) throw new Error(`mcp-rewind: the server did not answer initialize within ${HANDSHAKE_MS / 1000} s`);
    if ('error' in answer) throw new Error(`mcp-rewind: the server refused initialize: ${answer.error.message}`);
    await this.inner.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.initialized = true;
  }

  send(message: JsonRpcMessage, options?: unknown): Promise<void> {
    return this.inner.send(message, options);
  }

  /**
   * A notification of the client: to the server when it has a session (the client's `initialized` after a replayed
   * initialize has none to go to), except a cancellation of a request the server never got (a replayed one).
   */
  async notify(
    message: JsonRpcNotification,
    options: unknown,
    upstreamRequests: ReadonlyMap<unknown, unknown>,
  ): Promise<void> {
    if (!this.started || !this.initialized) return;
    if (message.method === 'notifications/cancelled' && !upstreamRequests.has(message.params?.requestId)) return;
    await this.inner.send(message, options);
  }

  async close(): Promise<void> {
    if (!this.starting || this.closed) return;
    this.closed = true;
    await this.starting.catch(() => {});
    await this.inner.close();
  }
}
