/**
 * The pipeline's contract: what every stage of one MCP endpoint shares — the plan (who answers), the hooks
 * (recorder, replayer, rules, breakpoints, events) and the context a stage is given. A leaf: it imports types only,
 * and no stage imports the endpoint.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { CassetteEntry, RefusalKind } from '../../../shared/cassette/entry.js';
import type { DebugFiles } from '../cassette/persist/persister.js';
import type { JsonRpcError, JsonRpcNotification, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { Log } from '../log.js';
import type { LiveExchange, Need, RequestHeaders, Rewrite } from './exchange.js';
import type { Session } from './session.js';

export type { Need, Rewrite } from './exchange.js';

/** The upstream MCP server as the pipeline uses it (upstream/http-upstream.ts). */
export interface Upstream {
  readonly url: URL;
  /** the URL without credentials, for logs and errors */
  readonly displayUrl: string;
  request(
    method: string,
    headers: Record<string, string | string[]>,
    body?: Buffer | { stream: Readable; chunks: Buffer[] },
    sessionId?: string | null,
    target?: URL,
    owned?: boolean,
  ): Promise<IncomingMessage>;
  /** opens an upstream session with the client's own initialize params (owned sessions) */
  initialize(params: Record<string, unknown>): Promise<{ sessionId?: string; result: Record<string, unknown>; protocolVersion: string }>;
  endSession(sessionId: string, protocolVersion?: string): Promise<void>;
  /** a progress notification of this answer went by (a per-call timeout starts over) */
  progressed?(res: IncomingMessage): void;
  /** the limit that cut this answer short (a timeout), if one did */
  cutBy?(res: IncomingMessage): Error | undefined;
  close(): void;
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
export type CassetteOffer = { entry: CassetteEntry } | { refuse: Refused } | { miss: () => { response: JsonRpcResponse; status?: number } };

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

/** Who answers a request, and how. Made by plan.ts (pure); carried out by the endpoint and the relay. */
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
  /** a stream of the proxy's own (it pushes list_changed, replayed notifications), the upstream's messages merged in */
  | { kind: 'own'; upstream: boolean };

// ---------------------------------------------------------------------------------------------------------------
// Hooks

/** The HTTP detail of an upstream-answered exchange (the cassette's debug files). */
export type ExchangeDetail = DebugFiles;

/**
 * One component plugged into the pipeline, in the spirit of mitmproxy's addons. Every method is optional; the
 * endpoint factory installs the hooks of a mode, in order (that order is the order of onResponse).
 */
export interface Hook {
  readonly name: string;
  /** does this hook want anything of the requests at all right now? false for every hook: POSTs are piped raw */
  readonly wantsRequests?: () => boolean;
  /** not ready to make its offer yet (the cassette is being indexed): says when it will be; exchange undefined for a GET */
  prepare?(exchange: LiveExchange | undefined): Promise<void> | undefined;
  /** before planning: may edit the request (`exchange.edited`) or answer it (`exchange.response`) */
  onRequest?(exchange: LiveExchange, session: Session | undefined, signal: Closable): void | Promise<void>;
  /** offers for the plan (at most one hook offers each kind) */
  offerRule?(exchange: LiveExchange): RuleOffer | undefined;
  offerCassette?(exchange: LiveExchange, session: Session): CassetteOffer | undefined;
  /** the plan is made (the replayer moves its cursor) */
  onPlanned?(exchange: LiveExchange, plan: Plan, session: Session): void;
  /** what this hook needs of the exchange (cheap: asked per request) */
  need?(exchange: LiveExchange): Need;
  /** a server message outside any request (the GET stream) */
  onServerMessage?(message: JsonRpcNotification, session: Session): void;
  /** how the server refuses a whole POST of this kind (replayer: as recorded, or as the SDK words it) */
  offerRefusal?(kind: RefusalKind, detail?: string): Refused | undefined;
  /** how the recorded answers usually travelled, for entries that kept no framing (replayer) */
  usualFraming?(): 'json' | 'sse' | undefined;
  /** with no server behind: would the recorded server refuse a request with these headers as a whole? */
  refusesHead?(headers: RequestHeaders): { kind: RefusalKind; detail?: string } | undefined;
  /** the upstream refused a whole POST of this kind (recorder: files it) */
  onRefusal?(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void;
  /** the final answer is known (exchange.response): before release when need was 'commit' or 'hold', else after */
  onResponse?(exchange: LiveExchange, session: Session | undefined, detail: ExchangeDetail | undefined, signal: Closable): void | Promise<void>;
  /** does onResponse want the HTTP detail of upstream answers (raw body, headers: the cassette's debug files)? */
  readonly wantsDetail?: boolean;
  /** may this hook push messages on the client's server stream (it then needs a stream of the proxy's own)? */
  readonly pushes?: () => boolean;
  close?(): Promise<void> | void;
}

/** The client's response, as far as a hook waiting on the client cares: it may go away. */
export interface Closable {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** The hooks of an endpoint, as the stages call them (chain.ts). */
export interface Hooks {
  /** any hook active (else POSTs are piped raw) */
  active(): boolean;
  /** resolves once every hook can make its offers for these exchanges (undefined: at once) */
  prepare(exchanges: readonly LiveExchange[]): Promise<unknown> | undefined;
  /** runs onResponse of the hooks that hold or commit the exchange (before the client gets the answer) */
  respond(exchange: LiveExchange, session: Session | undefined, signal: Closable, detail?: ExchangeDetail): Promise<void>;
  /** runs onResponse of the hooks that observe the exchange (after the client got it); never throws */
  finish(exchange: LiveExchange, session: Session | undefined, detail?: ExchangeDetail): Promise<void>;
  /** a server notification outside any request */
  serverMessage(message: JsonRpcNotification, session: Session): void;
  /** how a POST of this kind is refused (a hook's recorded refusal, else the TypeScript SDK's words) */
  refusal(kind: RefusalKind, detail?: string): Refused;
  /** the upstream refused a POST of this kind: hooks that keep refusals get it */
  refused(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void;
  /** some hook pushes messages of its own on server streams */
  pushes(): boolean;
  /** some hook wants the HTTP detail of upstream answers */
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
