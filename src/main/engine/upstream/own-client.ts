/**
 * The proxy's own MCP calls — the start-up probe, transport detection, tool discovery for the rules, serve's
 * supervisor, verify — made with the SDK's Client (the proxy is the client here, so its id numbering and handshake
 * are what we want), each with an AbortSignal deadline. Live traffic never goes through this: it is relayed raw.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { hasAuthorization } from '../http/headers.js';
import { signedFetch, type UpstreamAuth } from './oauth/challenge.js';

export interface OwnClientOptions {
  /** sent on every request (the upstream's own credentials) */
  headers?: Record<string, string>;
  /** deadline of the handshake and of each call */
  timeoutMs?: number;
  /** who the proxy says it is (`mcp-rewind-<purpose>`) */
  name: string;
  /** the client's capabilities (verify declares the recorded client's) */
  capabilities?: Record<string, unknown>;
  /** legacy HTTP+SSE instead of Streamable HTTP */
  legacySse?: boolean;
  /** the initialize params to send instead of the SDK's own (verify sends the recorded client's, protocol version included) */
  initializeParams?: Record<string, unknown>;
  /** answers server→client requests (sampling, elicitation, roots…) that have no handler of the SDK's */
  answer?: (request: JSONRPCRequest) => Promise<Record<string, unknown>>;
  /**
   * the upstream's OAuth sign-in: its token goes on every request; a 401 is cured by a refresh, never by a browser
   * sign-in (these calls cannot wait for one: SignInRequiredError instead)
   */
  auth?: UpstreamAuth;
  /** sees every message of the session as it travels, both ways (verify keeps what streamed during its request) */
  tap?: (message: JSONRPCMessage, direction: 'in' | 'out') => void;
}

/** A client of the proxy's own, with the server's raw initialize result. */
export interface OwnClient {
  client: Client;
  /** the server's initialize result, as it sent it */
  initializeResult: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Any JSON object: results are taken as the server sent them (the SDK's own schemas drop unknown fields). */
export const RawResult = z.looseObject({});

/** An MCP session of the proxy's own on `url`: connected (initialize done) or rejected with the reason. */
export async function connectOwnClient(url: string | URL, options: OwnClientOptions): Promise<Client> {
  return (await openOwnClient(url, options)).client;
}

/** connectOwnClient, with the server's raw initialize result. */
export async function openOwnClient(url: string | URL, options: OwnClientOptions): Promise<OwnClient> {
  try {
    return await openOnce(url, options);
  } catch (error) {
    // a pooled keep-alive connection the server closed meanwhile (it restarted): once more, on a new connection
    if (((error as { cause?: { code?: string } }).cause?.code ?? '') !== 'UND_ERR_SOCKET') throw error;
    return openOnce(url, options);
  }
}

async function openOnce(url: string | URL, options: OwnClientOptions): Promise<OwnClient> {
  const { target, headers } = withoutCredentials(new URL(url), options.headers ?? {});
  const requestInit = { headers };
  const inner: Transport = options.legacySse
    ? new SSEClientTransport(target, { requestInit, eventSourceInit: { fetch: withHeaders(headers) } })
    : new StreamableHTTPClientTransport(target, {
        requestInit,
        fetch:
          options.auth && !hasAuthorization(headers)
            ? signedFetch(options.auth, target, false, target.href)
            : undefined,
      });
  const transport = new InitializeAs(inner, options.initializeParams, options.tap);
  const info = options.initializeParams?.clientInfo as { name?: string; version?: string } | undefined;
  const capabilities =
    (options.initializeParams?.capabilities as Record<string, unknown> | undefined) ?? options.capabilities ?? {};
  const client = new Client({ name: info?.name ?? options.name, version: info?.version ?? '1' }, { capabilities });
  if (options.answer) client.fallbackRequestHandler = (request) => options.answer!(request) as never;
  try {
    await client.connect(transport, {
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, initializeResult: transport.initializeResult ?? {} };
}

/**
 * A transport that sends given initialize params instead of the Client's (which always asks for the SDK's latest
 * protocol version) and keeps the server's raw initialize result; everything else passes through.
 */
class InitializeAs implements Transport {
  initializeResult?: Record<string, unknown>;
  private initId?: string | number;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: Transport,
    private readonly params?: Record<string, unknown>,
    private readonly tap?: OwnClientOptions['tap'],
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const m = message as { id?: unknown; result?: Record<string, unknown> };
      if (this.initId !== undefined && m.id === this.initId && m.result) this.initializeResult = m.result;
      this.tap?.(message, 'in');
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { method?: string; id?: string | number };
    if (m.method === 'initialize' && m.id !== undefined) {
      this.initId = m.id;
      if (this.params) message = { ...message, params: this.params } as JSONRPCMessage;
    }
    this.tap?.(message, 'out');
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** the Streamable HTTP transport inside, to end its session */
  get streamable(): StreamableHTTPClientTransport | undefined {
    return this.inner instanceof StreamableHTTPClientTransport ? this.inner : undefined;
  }
}

/** Ends the session politely (DELETE on Streamable HTTP), then closes. */
export async function closeOwnClient(client: Client): Promise<void> {
  const transport = client.transport instanceof InitializeAs ? client.transport.streamable : undefined;
  if (transport?.sessionId) await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
}

/** Every page of tools/list, as the server sent them. */
export async function listAllTools(
  client: Client,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  maxPages = 100,
): Promise<Array<Record<string, unknown>>> {
  const tools: Array<Record<string, unknown>> = [];
  let cursor: unknown;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor: cursor as string } },
      RawResult,
      {
        signal: AbortSignal.timeout(timeoutMs),
        timeout: timeoutMs,
      },
    );
    tools.push(...((result.tools as Array<Record<string, unknown>> | undefined) ?? []));
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === null) break;
  }
  return tools;
}

/** A ping with a deadline. */
export async function ping(client: Client, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
  await client.request({ method: 'ping' }, RawResult, { signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs });
}

/** EventSource takes no headers option: its fetch adds them (credentials of a legacy SSE upstream). */
function withHeaders(headers: Record<string, string> | undefined): typeof fetch {
  return (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}

/** fetch refuses URLs with user:password@: they become a Basic Authorization header (unless one is given). */
export function withoutCredentials(
  url: URL,
  headers: Record<string, string>,
): { target: URL; headers: Record<string, string> } {
  if (!url.username && !url.password) return { target: url, headers };
  const out = { ...headers };
  if (!hasAuthorization(out))
    out.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const target = new URL(url);
  target.username = '';
  target.password = '';
  return { target, headers: out };
}
