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
  let upstream = new StreamableHTTPClientTransport(new URL(proxyUrl));
  /** downstream requests not answered yet */
  const pending = new Set<JsonRpcId>();
  let initId: JsonRpcId | undefined;
  let initParams: Record<string, unknown> | undefined;
  let reinitializing: Promise<void> | undefined;
  let reinitCount = 0;
  const internal = new Map<JsonRpcId, (message: JsonRpcMessage) => void>();
  let idleWaiters: Array<() => void> = [];
  let isClosed = false;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  const answered = (id: JsonRpcId): void => {
    pending.delete(id);
    if (pending.size === 0) for (const wake of idleWaiters.splice(0)) wake();
  };

  const sendDown = readFirst((message) => downstream.send(message));
  const toDownstream = (message: JsonRpcMessage): void => {
    if (isResponse(message) && message.id !== null) {
      const own = internal.get(message.id);
      if (own) return own(message);
      answered(message.id);
      if (message.id === initId && 'result' in message && typeof message.result.protocolVersion === 'string')
        upstream.setProtocolVersion(message.result.protocolVersion);
    }
    sendDown(message as JSONRPCMessage).catch((error: Error) =>
      log(`could not write to the client: ${error.message}`, 'warn'),
    );
  };

  const wire = (transport: StreamableHTTPClientTransport): void => {
    transport.onmessage = (message) => {
      if (transport === upstream) toDownstream(message as unknown as JsonRpcMessage);
    };
    transport.onerror = (error) => {
      if (transport === upstream && !isClosed && !(error.name === 'AbortError' || /aborted/i.test(error.message)))
        log(`proxy connection: ${error.message}`, 'info');
    };
  };

  /** A new proxy session with the client's own initialize params; the client never sees this exchange. */
  const reinitialize = (): Promise<void> => {
    reinitializing ??= (async () => {
      const previous = upstream;
      upstream = new StreamableHTTPClientTransport(new URL(proxyUrl));
      wire(upstream);
      await upstream.start();
      void previous.close().catch(() => {});
      const id = `${REINIT_PREFIX}${++reinitCount}`;
      const answer = new Promise<JsonRpcMessage>((resolve) => internal.set(id, resolve));
      try {
        await upstream.send({ jsonrpc: '2.0', id, method: 'initialize', params: initParams } as JSONRPCMessage);
        const reply = await answer;
        if (!('result' in reply))
          throw new Error(`initialize failed: ${'error' in reply ? reply.error.message : 'no result'}`);
        if (typeof reply.result.protocolVersion === 'string') upstream.setProtocolVersion(reply.result.protocolVersion);
        await upstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
        log("proxy session lost (404): opened a new one with the client's initialize", 'info');
      } finally {
        internal.delete(id);
      }
    })().finally(() => {
      reinitializing = undefined;
    });
    return reinitializing;
  };

  const forward = async (message: JsonRpcMessage): Promise<void> => {
    if (reinitializing) await reinitializing.catch(() => {});
    try {
      await upstream.send(message as JSONRPCMessage);
    } catch (error) {
      const lost = error instanceof StreamableHTTPError && error.code === 404;
      // only a request re-opens a session: a late reply or notification belonged to the session that is gone
      if (!lost || initParams === undefined || !isRequest(message) || message.method === 'initialize') throw error;
      await reinitialize();
      await upstream.send(message as JSONRPCMessage);
    }
  };

  downstream.onmessage = (raw) => {
    const message = raw as unknown as JsonRpcMessage;
    if (isRequest(message)) {
      pending.add(message.id);
      if (message.method === 'initialize') {
        initId = message.id;
        initParams = message.params;
      }
    }
    forward(message).catch((error: Error) => {
      if (!isRequest(message) || !pending.has(message.id))
        return log(
          `could not relay ${'method' in message ? message.method : 'a reply'} to the proxy: ${error.message}`,
          'warn',
        );
      toDownstream(errorResponse(message.id, ErrorCode.InternalError, `mcp-rewind: ${error.message}`));
    });
  };
  downstream.onclose = () => void close();
  downstream.onerror = (error) => log(`client connection: ${error.message}`, 'info');
  wire(upstream);

  async function close(): Promise<void> {
    if (isClosed) return closed;
    isClosed = true;
    for (const wake of idleWaiters.splice(0)) wake();
    try {
      if (upstream.sessionId) await upstream.terminateSession().catch(() => {});
      await upstream.close().catch(() => {});
      await downstream.close().catch(() => {});
    } finally {
      markClosed();
    }
  }

  await upstream.start();
  await downstream.start();

  return {
    closed,
    close,
    idle: (timeoutMs) =>
      pending.size === 0 || isClosed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, timeoutMs);
            function done(): void {
              clearTimeout(timer);
              idleWaiters = idleWaiters.filter((w) => w !== done);
              resolve();
            }
            idleWaiters.push(done);
          }),
  };
}
