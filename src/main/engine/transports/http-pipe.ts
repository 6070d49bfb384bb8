/**
 * A downstream client on another transport (stdio, legacy SSE) piped onto the proxy's own Streamable HTTP
 * endpoint, raw JSON-RPC message by message: ids, tokens and params are never touched. The SDK's
 * StreamableHTTPClientTransport does the HTTP side (session id, protocol version header, SSE answers, GET stream).
 *
 * - A request the proxy could not take (HTTP error, connection refused) is answered with a JSON-RPC error, so the
 *   client never waits forever.
 * - What the proxy sends goes to the client in order, an answer never in the same read as what came before it
 *   (read-first.ts: the v1 SDK client would drop that progress).
 * - A 404 means the proxy's session is gone (e.g. a stdio upstream died in record mode, where the proxy hands the
 *   upstream's session through): the pipe opens a new session with the client's own initialize params and sends
 *   the request again, once — a stdio or legacy SSE client has no way to re-initialize by itself.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  errorResponse,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
} from '../../../shared/jsonrpc.js';
import type { Log } from '../log.js';
import { readFirst } from './read-first.js';

export interface HttpPipe {
  /** resolves once every request received so far has been answered (or after `timeoutMs`) */
  idle(timeoutMs: number): Promise<void>;
  /** ends the proxy session (DELETE) and closes both sides; idempotent */
  close(): Promise<void>;
  /** resolves when the pipe has closed, from either side */
  readonly closed: Promise<void>;
}

const REINIT_PREFIX = 'mcp-rewind-reinit-';

/**
 * Pipes `downstream` to the Streamable HTTP endpoint at `proxyUrl`, then starts both transports (the downstream's
 * start() may already talk, e.g. an SSE endpoint event). `log` gets transport errors worth a line.
 */
export async function pipeToProxy(downstream: Transport, proxyUrl: string, log: Log): Promise<HttpPipe> {
  const pipe = new ProxyPipe(downstream, proxyUrl, log);
  await pipe.start();
  return pipe;
}

class ProxyPipe implements HttpPipe {
  private upstream: StreamableHTTPClientTransport;
  /** downstream requests not answered yet */
  private readonly pending = new Set<JsonRpcId>();
  /** the client's initialize: its id and params, to open a new session the same way */
  private initId: JsonRpcId | undefined;
  private initParams: Record<string, unknown> | undefined;
  private reinitializing: Promise<void> | undefined;
  private reinitCount = 0;
  /** answers to the pipe's own requests (a re-initialize), by id */
  private readonly internal = new Map<JsonRpcId, (message: JsonRpcMessage) => void>();
  /** to the client, in order, an answer never in the same read as what came just before it (read-first.ts) */
  private readonly sendDown: (message: JSONRPCMessage) => Promise<void>;
  private idleWaiters: Array<() => void> = [];
  private isClosed = false;
  private markClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(
    private readonly downstream: Transport,
    private readonly proxyUrl: string,
    private readonly log: Log,
  ) {
    this.upstream = new StreamableHTTPClientTransport(new URL(proxyUrl));
    this.sendDown = readFirst((message) => downstream.send(message));
    downstream.onmessage = (raw) => this.fromDownstream(raw as unknown as JsonRpcMessage);
    downstream.onclose = () => void this.close();
    downstream.onerror = (error) => log(`client connection: ${error.message}`, 'info');
    this.wire(this.upstream);
  }

  async start(): Promise<void> {
    await this.upstream.start();
    await this.downstream.start();
  }

  idle(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0 || this.isClosed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.idleWaiters.push(done);
    });
  }

  async close(): Promise<void> {
    if (this.isClosed) return this.closed;
    this.isClosed = true;
    for (const wake of this.idleWaiters.splice(0)) wake();
    try {
      if (this.upstream.sessionId) await this.upstream.terminateSession().catch(() => {});
      await this.upstream.close().catch(() => {});
      await this.downstream.close().catch(() => {});
    } finally {
      this.markClosed();
    }
  }

  private answered(id: JsonRpcId): void {
    this.pending.delete(id);
    if (this.pending.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private toDownstream(message: JsonRpcMessage): void {
    if (isResponse(message) && message.id !== null) {
      const own = this.internal.get(message.id);
      if (own) return own(message);
      this.answered(message.id);
      if (message.id === this.initId && 'result' in message && typeof message.result.protocolVersion === 'string')
        this.upstream.setProtocolVersion(message.result.protocolVersion);
    }
    this.sendDown(message as JSONRPCMessage).catch((error: Error) =>
      this.log(`could not write to the client: ${error.message}`, 'warn'),
    );
  }

  private wire(transport: StreamableHTTPClientTransport): void {
    transport.onmessage = (message) => {
      if (transport === this.upstream) this.toDownstream(message as unknown as JsonRpcMessage);
    };
    transport.onerror = (error) => {
      const aborted = error.name === 'AbortError' || /aborted/i.test(error.message);
      if (transport === this.upstream && !this.isClosed && !aborted)
        this.log(`proxy connection: ${error.message}`, 'info');
    };
  }

  private fromDownstream(message: JsonRpcMessage): void {
    if (isRequest(message)) {
      this.pending.add(message.id);
      if (message.method === 'initialize') {
        this.initId = message.id;
        this.initParams = message.params;
      }
    }
    this.forward(message).catch((error: Error) => {
      if (!isRequest(message) || !this.pending.has(message.id))
        return this.log(
          `could not relay ${'method' in message ? message.method : 'a reply'} to the proxy: ${error.message}`,
          'warn',
        );
      this.toDownstream(errorResponse(message.id, ErrorCode.InternalError, `mcp-rewind: ${error.message}`));
    });
  }

  private async forward(message: JsonRpcMessage): Promise<void> {
    if (this.reinitializing) await this.reinitializing.catch(() => {});
    try {
      await this.upstream.send(message as JSONRPCMessage);
    } catch (error) {
      const lost = error instanceof StreamableHTTPError && error.code === 404;
      // only a request re-opens a session: a late reply or notification belonged to the session that is gone
      if (!lost || this.initParams === undefined || !isRequest(message) || message.method === 'initialize') throw error;
      await this.reinitialize();
      await this.upstream.send(message as JSONRPCMessage);
    }
  }

  /** A new proxy session with the client's own initialize params (once at a time); the client never sees it. */
  private reinitialize(): Promise<void> {
    this.reinitializing ??= this.openSession().finally(() => {
      this.reinitializing = undefined;
    });
    return this.reinitializing;
  }

  private async openSession(): Promise<void> {
    const previous = this.upstream;
    this.upstream = new StreamableHTTPClientTransport(new URL(this.proxyUrl));
    this.wire(this.upstream);
    await this.upstream.start();
    void previous.close().catch(() => {});
    const id = `${REINIT_PREFIX}${++this.reinitCount}`;
    const answer = new Promise<JsonRpcMessage>((resolve) => this.internal.set(id, resolve));
    try {
      const params = this.initParams;
      await this.upstream.send({ jsonrpc: '2.0', id, method: 'initialize', params } as JSONRPCMessage);
      const reply = await answer;
      if (!('result' in reply))
        throw new Error(`initialize failed: ${'error' in reply ? reply.error.message : 'no result'}`);
      if (typeof reply.result.protocolVersion === 'string')
        this.upstream.setProtocolVersion(reply.result.protocolVersion);
      await this.upstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
      this.log("proxy session lost (404): opened a new one with the client's initialize", 'info');
    } finally {
      this.internal.delete(id);
    }
  }
}
