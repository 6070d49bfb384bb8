import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ProxyCatalog, SentBy, TrafficEvent } from '../../../shared/api.js';
import type { JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { megabytes } from '../../../shared/api-frames.js';
import { appSessionCapabilities, DEFAULT_APP_SESSION, type AppSessionConfig } from '../../../shared/app-session.js';
import { MAX_BODY_BYTES } from '../../engine/http/body.js';
import type { ServerRequestDesk } from './server-request-desk.js';

/**
 * The app's own MCP client of each proxy: Resend, Edit & resend and Compose go through the proxy's own endpoint, so
 * the whole pipeline applies (rules, breakpoints, recording, cassette), on a session initialized for the app — the
 * agent's session and its ids are never touched. The official SDK Client over Streamable HTTP, one per proxy,
 * connected on first use (and again when the proxy restarted). What it declares (sampling, elicitation, roots and
 * the roots it lists) is the user's to choose (`declare`); sampling and elicitation requests from the server are put
 * to the user (ServerRequestDesk). A request may carry extra HTTP headers (an Authorization for the upstream).
 *
 * The timeline links the exchanges: the controller passes every exchange through `tag`, which recognises the app's
 * session (by its Mcp-Session-Id) and the requests sent here (by their id on that session) — no header is added,
 * nothing changes on the wire.
 */

/** clientInfo of the app's sessions, as the timeline and the upstream see it */
export const APP_CLIENT_NAME = 'mcp-rewind (app)';
/** a resend may sit at a breakpoint for its 5 minutes, or stream for long */
const REQUEST_TIMEOUT_MS = 6 * 60_000;
/** how long a sender waits for its exchange to reach the timeline after the answer came */
const EVENT_WAIT_MS = 5_000;

const AnyResult = z.looseObject({});

interface Connection {
  url: string;
  client: Client;
  transport: StreamableHTTPClientTransport;
  sessionId?: string;
}

interface Expected {
  sentBy: SentBy;
  seen?: (event: TrafficEvent) => void;
  /** extra HTTP headers of the request's POST */
  headers?: Record<string, string>;
}

export interface SendRequest {
  method: string;
  params?: Record<string, unknown>;
  sentBy: SentBy;
  headers?: Record<string, string>;
}

/** the JSON-RPC id of a POST's body (one message), without keeping the parse */
function idOfBody(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  } catch {
    return undefined;
  }
}

/** A request the proxy would refuse for its size (413) is refused here, with that reason, before it is sent. */
function tooLarge(method: string, params: Record<string, unknown> | undefined): void {
  const bytes = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }));
  if (bytes > MAX_BODY_BYTES)
    throw new Error(
      `not sent: the request is ${megabytes(bytes)}, over the ${megabytes(MAX_BODY_BYTES)} body limit of the proxy (and of MCP servers built on the SDK)`,
    );
}

export class AppSessions {
  private readonly connections = new Map<string, Promise<Connection>>();
  /** `${proxyId} ${sessionId} ${requestId}` of requests sent here, until their exchange reaches the timeline */
  private readonly expected = new Map<string, Expected>();
  /** Mcp-Session-Id → proxy, for every session the app opened */
  private readonly sessions = new Map<string, string>();
  /** the tag of the request the client is about to write (Protocol.request writes synchronously) */
  private tagging?: Expected;
  private closed = false;
  private config: AppSessionConfig = DEFAULT_APP_SESSION;

  constructor(
    private readonly proxyUrl: (proxyId: string) => string | undefined,
    readonly desk: ServerRequestDesk,
    private readonly version: string,
    private readonly log: (line: string, level: 'info' | 'warn') => void,
  ) {}

  /**
   * Marks an exchange of the app's own session (before it reaches the timeline): what the app sent, and from which
   * exchange; the sender waiting for it learns its timeline number.
   */
  tag(event: TrafficEvent): void {
    const init =
      event.method === 'initialize' &&
      (event.request.params?.clientInfo as { name?: unknown } | undefined)?.name === APP_CLIENT_NAME;
    if (!init && (event.sessionId === undefined || this.sessions.get(event.sessionId) !== event.proxyId)) return;
    const key = `${event.proxyId} ${event.sessionId} ${String(event.request.id)}`;
    const expected = this.expected.get(key);
    this.expected.delete(key);
    event.sentBy = expected?.sentBy ?? { kind: 'app' };
    expected?.seen?.(event);
  }

  /** What the app's sessions declare at initialize. */
  declared(): AppSessionConfig {
    return this.config;
  }

  /** Declares something else from the next call on: every app session is ended (a new one initializes with it). */
  declare(config: AppSessionConfig): AppSessionConfig {
    this.config = config;
    for (const id of [...this.connections.keys()]) this.drop(id);
    return config;
  }

  /** Sends a request through the proxy; answers its response and the exchange the timeline got for it. */
  async send(proxyId: string, request: SendRequest): Promise<{ response: JsonRpcResponse; event?: TrafficEvent }> {
    const params = request.params ? { ...request.params } : undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const progress = meta !== undefined && 'progressToken' in meta; // the client issues its own token
    if (progress && params) {
      const { progressToken: _old, ...rest } = meta;
      params._meta = rest;
      if (Object.keys(rest).length === 0) delete params._meta;
    }
    tooLarge(request.method, params);
    let event: TrafficEvent | undefined;
    let arrived: () => void = () => {};
    const landed = new Promise<void>((resolve) => (arrived = resolve));
    const expected: Expected = {
      sentBy: request.sentBy,
      seen: (e) => ((event = e), arrived()),
      ...(request.headers && Object.keys(request.headers).length ? { headers: request.headers } : {}),
    };
    const attempt = async (): Promise<{
      id?: string | number;
      outcome: { result: Record<string, unknown> } | { error: McpError };
    }> => {
      const connection = await this.connect(proxyId);
      this.tagging = expected;
      const sending = connection.client.request({ method: request.method, params }, AnyResult, {
        timeout: REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        ...(progress ? { onprogress: () => {} } : {}),
      });
      const id = this.lastId;
      this.tagging = undefined;
      try {
        return { id, outcome: { result: await sending } };
      } catch (error) {
        if (error instanceof McpError) return { id, outcome: { error } };
        throw error;
      }
    };
    let sent: Awaited<ReturnType<typeof attempt>>;
    try {
      sent = await attempt();
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404)) throw this.readable(proxyId, error);
      this.drop(proxyId); // the proxy restarted and forgot the app's session: a new one, and once more
      sent = await attempt().catch((again: unknown) => Promise.reject(this.readable(proxyId, again)));
    }
    await Promise.race([landed, new Promise((resolve) => setTimeout(resolve, EVENT_WAIT_MS).unref())]);
    for (const [key, value] of this.expected) if (value === expected) this.expected.delete(key); // never reached the timeline
    const id = sent.id ?? 0;
    const response: JsonRpcResponse =
      event?.response ??
      ('result' in sent.outcome
        ? { jsonrpc: '2.0', id, result: sent.outcome.result }
        : {
            jsonrpc: '2.0',
            id,
            error: {
              code: sent.outcome.error.code,
              message: sent.outcome.error.message,
              ...(sent.outcome.error.data !== undefined ? { data: sent.outcome.error.data } : {}),
            },
          });
    return { response, event };
  }

  /** What the proxy offers, listed through the app's session: its tools (as its rules merge them), prompts, resources. */
  async catalog(proxyId: string): Promise<ProxyCatalog> {
    const { client } = await this.connect(proxyId).catch((error: unknown) =>
      Promise.reject(this.readable(proxyId, error)),
    );
    const caps = client.getServerCapabilities() ?? {};
    const out: ProxyCatalog = { tools: [], prompts: [], resources: [], resourceTemplates: [], problems: [] };
    const list = async <T>(name: string, offered: unknown, method: string, field: string, into: T[]): Promise<void> => {
      if (!offered) return void out.problems.push(`${name}: not offered by the server`);
      try {
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
          const result = (await client.request({ method, params: cursor ? { cursor } : {} }, AnyResult, {
            timeout: 30_000,
          })) as Record<string, unknown>;
          into.push(...((result[field] as T[] | undefined) ?? []));
          cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
          if (!cursor) break;
        }
      } catch (error) {
        out.problems.push(`${name}: ${(error as Error).message}`);
      }
    };
    await list('tools', caps.tools, 'tools/list', 'tools', out.tools);
    await list('prompts', caps.prompts, 'prompts/list', 'prompts', out.prompts);
    await list('resources', caps.resources, 'resources/list', 'resources', out.resources);
    await list(
      'resource templates',
      caps.resources,
      'resources/templates/list',
      'resourceTemplates',
      out.resourceTemplates,
    );
    return out;
  }

  /** Ends the app's session of a proxy (it stopped, restarted or went away); questions it asked are refused. */
  drop(proxyId: string): void {
    const connecting = this.connections.get(proxyId);
    this.connections.delete(proxyId);
    this.desk.refuseAll(proxyId, 'the proxy stopped');
    void connecting
      ?.then(async (c) => {
        if (c.sessionId) this.sessions.delete(c.sessionId);
        await Promise.race([
          c.transport.terminateSession().catch(() => {}),
          new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
        ]);
        await c.client.close();
      })
      .catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.connections.keys()]) this.drop(id);
  }

  /** the id the client gave the request it just wrote */
  private lastId?: string | number;

  private connect(proxyId: string): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error('the app is shutting down'));
    const url = this.proxyUrl(proxyId);
    if (!url) return Promise.reject(new Error('the proxy is not running: start it first'));
    const existing = this.connections.get(proxyId);
    if (existing) {
      return existing.then(
        (c) => {
          if (c.url === url) return c;
          this.drop(proxyId); // restarted on another port
          return this.connect(proxyId);
        },
        () => {
          this.connections.delete(proxyId);
          return this.connect(proxyId);
        },
      );
    }
    const connecting = this.open(proxyId, url);
    this.connections.set(proxyId, connecting);
    connecting.catch(() => this.connections.get(proxyId) === connecting && this.connections.delete(proxyId));
    return connecting;
  }

  private async open(proxyId: string, url: string): Promise<Connection> {
    const config = this.config;
    const client = new Client(
      { name: APP_CLIENT_NAME, version: this.version },
      { capabilities: appSessionCapabilities(config) },
    );
    // a handler only for what is declared (the SDK refuses one for a capability the client does not declare)
    if (config.capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: config.roots }));
    const ask = (req: { method: string; params?: unknown }): never =>
      this.desk.ask(proxyId, req.method, req.params as Record<string, unknown>) as never;
    if (config.capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, ask);
    if (config.capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, ask);
    client.onerror = (error) => this.log(`app session: ${error.message}`, 'info');
    /** id → extra headers of a request about to be POSTed */
    const extra = new Map<string, Record<string, string>>();
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: (input, init) => {
        const id = extra.size ? idOfBody(init?.body) : undefined;
        const headers = id !== undefined ? extra.get(id) : undefined;
        if (!headers || id === undefined) return fetch(input, init);
        extra.delete(id);
        const merged = new Headers(init?.headers);
        for (const [name, value] of Object.entries(headers)) merged.set(name, value);
        return fetch(input, { ...init, headers: merged });
      },
    });
    const write = transport.send.bind(transport);
    const connection: Connection = { url, client, transport };
    transport.send = (message: JSONRPCMessage, options) => {
      if ('method' in message && 'id' in message && message.method !== 'initialize') {
        this.lastId = message.id;
        const tag = this.tagging;
        if (tag) this.expected.set(`${proxyId} ${connection.sessionId} ${String(message.id)}`, tag);
        if (tag?.headers) extra.set(String(message.id), tag.headers);
      }
      return write(message, options);
    };
    await client.connect(transport, { timeout: 30_000 });
    connection.sessionId = transport.sessionId;
    if (connection.sessionId) this.sessions.set(connection.sessionId, proxyId);
    return connection;
  }

  private readable(proxyId: string, error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    const url = this.proxyUrl(proxyId);
    return new Error(url ? `the proxy at ${url} did not answer: ${message}` : message);
  }
}
