/**
 * The pipeline's contract: what every stage of one MCP endpoint shares — who answers (the plan, the answer sources
 * that offer and deliver: upstream, cassette, rules, the proxy itself), the hooks (recorder, replayer, rules,
 * breakpoints, events: events and needs) and the context a stage is given. A leaf: it imports types only, and no
 * stage imports the endpoint.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { CassetteEntry, RefusalKind } from '../../../../shared/cassette/entry.js';
import type { DebugFiles } from '../../cassette/persist/persister.js';
import type { McpHead } from '../../http/url.js';
import type {
  JsonRpcError,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '../../../../shared/jsonrpc.js';
import type { Log } from '../../log.js';
import type { LiveExchange, Need, RequestHeaders, Rewrite } from './exchange.js';
import type { Session, SessionRegistry } from './session.js';

/** The HTTP methods of the MCP endpoint (Streamable HTTP). */
export type HttpVerb = 'POST' | 'GET' | 'DELETE';

/** What a server sends on its GET stream that a hook may keep: a notification, or a request to the client. */
export type ServerMessage = JsonRpcNotification | JsonRpcRequest;
export type { Need, Rewrite } from './exchange.js';

/** The upstream MCP server as the pipeline uses it (upstream/http-upstream.ts). */
export interface Upstream {
  readonly url: URL;
  /** the URL without credentials, for logs and errors */
  readonly displayUrl: string;
  /** sends a request; resolves with the answer's head as soon as it arrives (the body streams on) */
  request(request: UpstreamRequest): Promise<IncomingMessage>;
  /** opens an upstream session with the client's own initialize params (owned sessions) */
  initialize(
    params: Record<string, unknown>,
  ): Promise<{ sessionId?: string; result: Record<string, unknown>; protocolVersion: string }>;
  endSession(sessionId: string, protocolVersion?: string): Promise<void>;
  /** a progress notification of this answer went by (a per-call timeout starts over) */
  progressed?(res: IncomingMessage): void;
  /** the limit that cut this answer short (a timeout), if one did */
  cutBy?(res: IncomingMessage): Error | undefined;
  close(): void;
}

/** One request to the upstream. */
export interface UpstreamRequest {
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | PipedBody;
  /** the upstream session it belongs to (replaces any `mcp-session-id` in `headers`) */
  sessionId?: string | null;
  /** another URL of the upstream's (a legacy SSE endpoint); default its MCP URL */
  target?: URL;
  /** `headers` is the caller's to give away: sent as they are, not copied */
  ownHeaders?: boolean;
}

/** A request body piped through as it arrives; `chunks` fills with its bytes as they pass (the caller collects them). */
export interface PipedBody {
  stream: Readable;
  chunks: Buffer[];
}

// ---------------------------------------------------------------------------------------------------------------
// Who answers

/** What the rule set offers for a request: its own answer, or a rewrite of whichever source answers. */
export interface RuleOffer {
  behavior?: 'relay' | 'override' | 'inject';
  /** the rules answer here (override, hidden or unknown tool, a behavior that cannot run without a source) */
  answer?: { response: JsonRpcResponse; delayMs: number };
  /** the rules change the answer on its way back */
  rewrite?: Rewrite;
}

/** A protocol-level answer (a refused request or POST): the HTTP status and the JSON-RPC error. */
export interface Refused {
  status: number;
  response: JsonRpcError;
}

/**
 * What the cassette offers: the recorded entry; a refusal the recorded server would give (a header that disagrees
 * with the body, an unsupported revision: the upstream judges those when there is one); or what replay answers
 * without an entry.
 */
export type CassetteOffer =
  { entry: CassetteEntry } | { refuse: Refused } | { miss: () => { response: JsonRpcResponse; status?: number } };

/** The facts a plan is made from: all known before anything is done. */
export interface PlanInput {
  method: string;
  /** a hook answered the request before planning (failed at a breakpoint) */
  answered?: JsonRpcResponse;
  rule?: RuleOffer;
  /** present when the endpoint reads the cassette */
  cassette?: CassetteOffer;
  /** a live upstream is configured */
  upstream: boolean;
  /** rules are installed: the proxy answers what only it knows when there is no other source */
  synthesize: boolean;
  /** the request is alone in its POST (not a batch): a recorded exchange is played back as it travelled */
  single: boolean;
  /** what the proxy answers itself when no one else can (initialize, ping, tools/list, errors) */
  local: () => JsonRpcResponse;
}

/** Who answers a request, and how. Made by plan.ts (pure); carried out by the source it names. */
export type Plan =
  | { answer: 'upstream' }
  | { answer: 'cassette'; entry: CassetteEntry; single: boolean }
  | { answer: 'rule'; response: JsonRpcResponse; delayMs: number }
  | { answer: 'local'; response: JsonRpcResponse; miss?: boolean; status?: number };

/** What the client's server stream (GET) is made of. */
export type StreamPlan =
  /** nothing to offer: 405 */
  | { kind: 'none' }
  /** the upstream's stream, byte for byte; `tap`: hooks read its messages on the way */
  | { kind: 'relay'; tap: boolean }
  /**
   * a stream of the proxy's own (it pushes list_changed, replayed notifications), the upstream's messages merged in:
   * `now`, `later` once the proxy opens the upstream session (hybrid: a session the cassette initialized, a miss opens
   * it), or `never`
   */
  | { kind: 'own'; upstream: UpstreamJoin };

/** when the upstream's GET stream joins a stream of the proxy's own (server-stream.ts) */
export type UpstreamJoin = 'now' | 'later' | 'never';

/** Who delivers the answer of a whole POST (plan.ts planDelivery): the relay, the replay, or the proxy here. */
export type Delivery = 'upstream' | 'cassette' | 'local';

// ---------------------------------------------------------------------------------------------------------------
// Answer sources

/** A request of a POST with its plan. */
export interface Planned {
  exchange: LiveExchange;
  plan: Plan;
}

/** One POST being answered, as the source that delivers it sees it. */
export interface Post {
  readonly stage: Stage;
  readonly sessions: SessionRegistry;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** its MCP headers */
  readonly head: McpHead;
  /** the client's body, as it came */
  readonly body: Buffer;
  readonly parsed: JsonRpcMessage | JsonRpcMessage[];
  readonly messages: JsonRpcMessage[];
  /** the client's session; for an initialize: the proxy's new session (owned), or undefined (born from the answer) */
  readonly session: Session | undefined;
  /** the session the plan read: the client's, else the shared stateless one */
  readonly planSession: Session;
  /** the initialize exchange of this POST, if it has one */
  readonly init?: LiveExchange;
  /** its requests, planned, in order */
  readonly planned: readonly Planned[];
  /** a hook changed the client's replies in it (a breakpoint): what goes upstream is re-serialised */
  readonly repliesEdited?: boolean;
}

/** An answer source that delivers a POST's answers on the client's response (mockttp's step, Polly's adapter). */
export interface AnswerSource {
  deliver(post: Post): Promise<void>;
}

/** The rules as a source: an answer of their own (override, hidden tool) or a rewrite of whichever source answers. */
export interface RuleSource {
  offer(exchange: LiveExchange): RuleOffer | undefined;
}

/**
 * The cassette as a source (the replayer): what it offers a request, how the recorded server refuses, and the replay
 * it delivers — with the per-session state of that replay (its cursor, the client's replies to the requests it
 * asked, the streams it played) kept to itself.
 */
export interface CassetteSource extends AnswerSource {
  /** not ready to make its offer yet (the cassette is being indexed): when it will be; exchange undefined: any request */
  prepare(exchange: LiveExchange | undefined): Promise<void> | undefined;
  offer(exchange: LiveExchange, session: Session): CassetteOffer;
  /** the plan took the entry it offered (its replay cursor moves on) */
  take(exchange: LiveExchange, session: Session): void;
  /** how the recorded server refuses a whole POST of this kind */
  refusal(kind: RefusalKind, detail?: string): Refused;
  /** with no server behind: would the recorded server refuse a request of this HTTP method (a POST: a batch?) with these headers as a whole? */
  refusesHead(
    headers: RequestHeaders,
    method: HttpVerb,
    batch?: boolean,
  ): { kind: RefusalKind; detail?: string } | undefined;
  /** has it messages of its own to push on server streams (recorded notifications)? */
  pushes(): boolean;
  /** the client's replies to requests the replay asked: taken (never forwarded); answers how many */
  takeReplies(session: Session, messages: JsonRpcMessage[]): number;
  /** a GET resuming a replayed stream the client dropped (Last-Event-ID): what followed goes out again; false: not one */
  redeliver(session: Session, lastEventId: string, res: ServerResponse): boolean;
  /** a server stream of the session opened: what waited for one goes out on it */
  streamOpened(session: Session, res: ServerResponse): void;
}

// ---------------------------------------------------------------------------------------------------------------
// Hooks

/** The HTTP detail of an upstream-answered exchange (the cassette's debug files). */
export type ExchangeDetail = DebugFiles;

/**
 * One component plugged into the pipeline, in the spirit of mitmproxy's addons: it is told the events of an exchange
 * and says what it needs of it. The endpoint factory installs the hooks of a mode, in order (that order is the order
 * of onResponse).
 */
export interface Hook {
  readonly name: string;
  /**
   * What this hook needs of the exchange (cheap: asked per request, once it is planned); without one: of the requests
   * to come, now ('none' from every hook: POSTs are piped unparsed)
   */
  need(exchange?: LiveExchange): Need;
  /** before planning: may edit the request in place (`exchange.delivery.edited`) or answer it (`exchange.respond`) */
  onRequest?(exchange: LiveExchange, session: Session | undefined, signal: Closable): void | Promise<void>;
  /** the final answer is known (exchange.response): before release when need was 'commit' or 'hold', else after */
  onResponse?(
    exchange: LiveExchange,
    session: Session | undefined,
    detail: ExchangeDetail | undefined,
    signal: Closable,
  ): void | Promise<void>;
  /**
   * the client's replies to server→client requests in a POST, before they go upstream: may hold, edit or fail them
   * in place (breakpoints.ts); true when one changed
   */
  onReplies?(messages: JsonRpcMessage[], session: Session, signal: Closable): Promise<boolean>;
  /** a server message outside any request (the GET stream): a notification, or a request to the client (roots/list) */
  onServerMessage?(message: ServerMessage, session: Session): void;
  /** does it want the GET streams opened from now on read for onServerMessage (absent: always) */
  watchesStreams?(): boolean;
  /** the upstream refused a whole POST of this kind */
  onRefusal?(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void;
  /**
   * does it keep the detail of upstream answers (the cassette's debug files: the request, the raw answer, its HTTP
   * status and headers), given to onResponse? Asked per exchange; absent: no
   */
  wantsDetail?(): boolean;
}

/** The client's response, as far as a hook waiting on the client cares: it may go away. */
export interface Closable {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** The hooks of an endpoint, as the stages call them (chain.ts). */
export interface Hooks {
  /** runs onResponse of the hooks that hold or commit the exchange (before the client gets the answer) */
  respond(
    exchange: LiveExchange,
    session: Session | undefined,
    signal: Closable,
    detail?: ExchangeDetail,
  ): Promise<void>;
  /** runs onResponse of the hooks that observe the exchange (after the client got it); never throws */
  finish(exchange: LiveExchange, session: Session | undefined, detail?: ExchangeDetail): Promise<void>;
  /** a server notification or server→client request outside any request */
  serverMessage(message: ServerMessage, session: Session): void;
  /** the upstream refused a POST of this kind: hooks that keep refusals get it */
  refused(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void;
  /** some hook wants the HTTP detail of upstream answers (the recorder's debug files) */
  wantsDetail(): boolean;
  /** some hook wants the server messages of GET streams */
  observesStreams(): boolean;
}

/** What a stage of the pipeline is given: the upstream (if any), the hooks and the logger — never the endpoint. */
export interface Stage {
  readonly upstream?: Upstream;
  readonly hooks: Hooks;
  readonly log: Log;
}
