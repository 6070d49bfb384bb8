/**
 * The proxy's own MCP calls — the start-up probe, transport detection, tool discovery for the rules, serve's
 * supervisor, verify — made with the SDK's Client (the proxy is the client here, so its id numbering and handshake
 * are what we want), each with an AbortSignal deadline. Live traffic never goes through this: it is relayed raw.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';

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
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Any JSON object: results are taken as the server sent them (the SDK's own schemas drop unknown fields). */
export const RawResult = z.looseObject({});

/** An MCP session of the proxy's own on `url`: connected (initialize done) or rejected with the reason. */
export async function connectOwnClient(url: string | URL, options: OwnClientOptions): Promise<Client> {
  const { target, headers } = withoutCredentials(new URL(url), options.headers ?? {});
  const requestInit = { headers };
  const transport: Transport = options.legacySse ? new SSEClientTransport(target, { requestInit, eventSourceInit: { fetch: withHeaders(headers) } }) : new StreamableHTTPClientTransport(target, { requestInit });
  const client = new Client({ name: options.name, version: '1' }, { capabilities: options.capabilities ?? {} });
  try {
    await client.connect(transport, { signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS), timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/** Ends the session politely (DELETE on Streamable HTTP), then closes. */
export async function closeOwnClient(client: Client): Promise<void> {
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
}

/** Every page of tools/list, as the server sent them. */
export async function listAllTools(client: Client, timeoutMs = DEFAULT_TIMEOUT_MS, maxPages = 100): Promise<Array<Record<string, unknown>>> {
  const tools: Array<Record<string, unknown>> = [];
  let cursor: unknown;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor: cursor as string } }, RawResult, { signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs });
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
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}

/** fetch refuses URLs with user:password@: they become a Basic Authorization header (unless one is given). */
function withoutCredentials(url: URL, headers: Record<string, string>): { target: URL; headers: Record<string, string> } {
  if (!url.username && !url.password) return { target: url, headers };
  const out = { ...headers };
  if (!Object.keys(out).some((h) => h.toLowerCase() === 'authorization')) out.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const target = new URL(url);
  target.username = '';
  target.password = '';
  return { target, headers: out };
}
