/**
 * Shared helpers for the `mcp-rewind serve` tests (MiMCP-compatible sessions over REST, token-gated MCP endpoint).
 *
 *   afterEach(cleanup);                           // in every test file
 *   const a = await instance();                    // a running serve + a REST client for it
 *   const s = await a.api.create({ tools: [...] }); // POST /api/sessions, asserts 201
 *   const c = await agent(s);                      // real SDK client on s.mcp.url with s.mcp.headers
 *
 * Everything started here (serve instances, clients, upstreams) is closed by cleanup(), newest first.
 */
import { startServe, type RunningServe, type ServeOptions } from '../../src/main/engine/serve.js';
import { connectClient, type ConnectedClient, type ConnectClientOptions } from '../fixtures/client.js';
import { removeTempDirs } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];

/** Registers something to close in cleanup() (newest first). */
export function keep<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}

export async function cleanup(): Promise<void> {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
}

// ---------------------------------------------------------------------------------------------------------------
// REST shapes (the contract)

export interface Behavior {
  type: string;
  [key: string]: unknown;
}

export interface ToolView {
  name: string;
  description?: string | null;
  input_schema: Record<string, unknown>;
  behavior: Behavior;
  origin: 'upstream' | 'overlay' | 'synthetic';
}

export interface McpAccess {
  url: string;
  headers: Record<string, string>;
  path_url: string;
  /** the agent's token: in the creation answer only */
  token: string;
}

export interface CreatedSession {
  session_id: string;
  name?: string | null;
  status: string;
  mode: string;
  mcp: McpAccess;
  upstream: { url: string; state: string } | null;
  tools: ToolView[];
}

export interface SessionDetail {
  session_id: string;
  name?: string | null;
  status: string;
  mode: string;
  cassette?: string | null;
  instructions?: string | null;
  passthrough: boolean;
  overlay: unknown[];
  created_at: string;
  mcp: McpAccess;
  agents: number;
  calls: number;
  upstream: {
    url: string;
    headers: Record<string, string>;
    state: 'connecting' | 'connected' | 'disconnected';
    last_error: string | null;
    attempts: number;
    connected_at: string | null;
  } | null;
}

export interface SessionSummary {
  session_id: string;
  name?: string | null;
  status: string;
  mode: string;
  created_at: string;
  upstream: { url: string; state: string } | null;
  calls: number;
}

export interface CallRecord {
  tool: string;
  arguments: Record<string, unknown>;
  behavior: 'relay' | 'override' | 'inject';
  response: Record<string, unknown>;
  is_error: boolean;
  duration_ms: number;
  at: string;
}

export interface HttpAnswer<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface ErrorBody {
  error: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------------------------
// REST client

export class Rest {
  constructor(
    readonly base: string,
    private readonly token?: string,
  ) {}

  /** A raw request: `body` is JSON-encoded unless it is a string (sent as is, to test malformed JSON). */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer<T>> {
    const all: Record<string, string> = { ...headers };
    if (this.token !== undefined && !Object.keys(all).some((h) => h.toLowerCase() === 'authorization'))
      all.authorization = `Bearer ${this.token}`;
    if (body !== undefined) all['content-type'] = 'application/json';
    const res = await fetch(this.base + path, {
      method,
      headers: all,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  private async expect<T>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.request<T>(method, path, body);
    if (answer.status !== status)
      throw new Error(`${method} ${path}: expected HTTP ${status}, got ${answer.status}: ${answer.text}`);
    return answer.body;
  }

  create(body: Record<string, unknown> = {}): Promise<CreatedSession> {
    return this.expect(201, 'POST', '/api/sessions', body);
  }
  list(): Promise<{ sessions: SessionSummary[] }> {
    return this.expect(200, 'GET', '/api/sessions');
  }
  detail(sid: string): Promise<SessionDetail> {
    return this.expect(200, 'GET', `/api/sessions/${sid}`);
  }
  async remove(sid: string): Promise<void> {
    await this.expect(204, 'DELETE', `/api/sessions/${sid}`);
  }
  tools(sid: string): Promise<{ tools: ToolView[]; passthrough: boolean }> {
    return this.expect(200, 'GET', `/api/sessions/${sid}/tools`);
  }
  putTools(
    sid: string,
    body: Record<string, unknown>,
  ): Promise<{ tools: ToolView[]; passthrough: boolean; notified: number }> {
    return this.expect(200, 'PUT', `/api/sessions/${sid}/tools`, body);
  }
  async calls(sid: string): Promise<CallRecord[]> {
    return (await this.expect<{ calls: CallRecord[] }>(200, 'GET', `/api/sessions/${sid}/calls`)).calls;
  }
}

export interface Instance {
  serve: RunningServe;
  api: Rest;
}

/** A running `serve` (closed in cleanup) and a REST client for it (presenting options.apiToken when set). */
export async function instance(options: ServeOptions = {}): Promise<Instance> {
  const serve = keep(await startServe(options));
  return { serve, api: new Rest(serve.url, serve.apiToken) };
}

/** An agent: the official SDK client on a session's MCP endpoint, presenting the token the way `via` says. */
export async function agent(
  session: CreatedSession,
  via: 'bearer' | 'x-header' | 'path' = 'bearer',
  opts: ConnectClientOptions = {},
): Promise<ConnectedClient> {
  const url = via === 'path' ? session.mcp.path_url : session.mcp.url;
  const headers =
    via === 'bearer' ? session.mcp.headers : via === 'x-header' ? { 'X-MiMCP-Session': session.mcp.token } : undefined;
  return keep(await connectClient(url, { ...opts, headers: { ...(headers ?? {}), ...(opts.headers ?? {}) } }));
}

/** The text blocks of a tool result, joined by newlines. */
export function textOf(result: unknown): string {
  const content = (result as { content?: unknown } | undefined)?.content;
  const blocks = Array.isArray(content) ? (content as Array<{ type: string; text?: string }>) : [];
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** PUT the overlay until at least `streams` agent streams were notified (the SDK client opens its GET stream asynchronously after initialize). */
export async function putUntilNotified(
  api: Rest,
  sid: string,
  body: Record<string, unknown>,
  streams = 1,
  timeoutMs = 10_000,
): Promise<{ tools: ToolView[]; passthrough: boolean; notified: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.putTools(sid, body);
    if (answer.notified >= streams || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Raw MCP HTTP (to see status codes the SDK client hides)

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
};

export async function rawMcpPost(
  url: string,
  headers: Record<string, string> = {},
  body: unknown = INITIALIZE,
): Promise<HttpAnswer<{ jsonrpc?: string; id?: unknown; error?: { code: number; message: string } }>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as never, text, headers: res.headers };
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures for the two-instance setup (B is the fake upstream, configured only through its REST API)

/** A 1x1 PNG. */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** B's synthetic override tools: what "the upstream" of instance A offers. */
export const B_TOOLS = [
  {
    name: 'weather',
    description: 'Weather from B',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    behavior: { type: 'override', response: { text: 'B: sunny' } },
  },
  {
    name: 'lookup',
    description: 'Lookup from B',
    input_schema: {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'number' }, obj: { type: 'object' } },
    },
    behavior: {
      type: 'override',
      response: {
        content: [
          { type: 'text', text: 'B-line-1' },
          { type: 'text', text: 'B-line-2' },
        ],
        structured_content: { hits: 2 },
      },
    },
  },
  {
    name: 'picture',
    description: 'A picture from B',
    input_schema: { type: 'object' },
    behavior: {
      type: 'override',
      response: {
        content: [
          { type: 'text', text: 'a pixel' },
          { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        ],
      },
    },
  },
  {
    name: 'broken',
    description: 'Always fails on B',
    input_schema: { type: 'object' },
    behavior: { type: 'override', response: { text: 'B failed', is_error: true } },
  },
  {
    name: 'admin',
    description: 'Dangerous admin tool on B',
    input_schema: { type: 'object', properties: { cmd: { type: 'string' } } },
    behavior: { type: 'override', response: { text: 'B: admin done' } },
  },
] as const;

export const B_TOOL_NAMES = B_TOOLS.map((t) => t.name);

export interface FakeUpstream extends Instance {
  session: CreatedSession;
}

/** Instance B: a serve with one session that has NO upstream, only synthetic override tools (B_TOOLS unless given). */
export async function fakeUpstream(
  tools: readonly unknown[] = B_TOOLS,
  options: ServeOptions = {},
): Promise<FakeUpstream> {
  const b = await instance(options);
  const session = await b.api.create({
    name: 'fake-upstream',
    tools: tools as unknown[],
    instructions: 'B instructions',
  });
  return { ...b, session };
}

// ---------------------------------------------------------------------------------------------------------------
// The MiMCP test setup: A (the proxy under test) in front of B (the fake upstream)

export interface Pair {
  a: Instance;
  b: FakeUpstream;
  /** A's session, whose upstream is B's session */
  session: CreatedSession;
  /** an agent on A's session */
  c: ConnectedClient;
}

/**
 * B with B_TOOLS, A with a session in front of B (B's path_url, or B's /mcp + Authorization header when
 * `viaHeader`), and an agent connected to A. `create` is merged into A's POST body.
 */
export async function pair(
  create: Record<string, unknown> = {},
  opts: { a?: ServeOptions; viaHeader?: boolean; bTools?: readonly unknown[] } = {},
): Promise<Pair> {
  const b = await fakeUpstream(opts.bTools ?? B_TOOLS);
  const a = await instance(opts.a ?? {});
  const upstream = opts.viaHeader
    ? { url: b.session.mcp.url, headers: { Authorization: `Bearer ${b.session.mcp.token}` } }
    : { url: b.session.mcp.path_url };
  const session = await a.api.create({ upstream, ...create });
  const c = await agent(session);
  return { a, b, session, c };
}

/** A tools/call answered with an error result or a JSON-RPC error: the McpError's code, or 'resolved'. */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string } | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return { code: (error as { code?: number }).code, message: String((error as Error).message) };
  }
}
