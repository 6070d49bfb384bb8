import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RefusalKind } from '../../../shared/cassette/entry.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { sendJson } from '../http/sse.js';
import type {
  AnswerSource,
  CassetteSource,
  HttpVerb,
  Plan,
  Post,
  Refused,
  RuleSource,
  Stage,
} from './core/contract.js';
import type { LiveExchange, RequestHeaders } from './core/exchange.js';
import { UpstreamDelivery } from './upstream/forward.js';
import { deliverHere } from './core/local-delivery.js';
import { planDelivery } from './core/plan.js';
import { planExchange } from './core/plan-exchange.js';
import { refusalFor } from './replay/replay-protocol.js';
import type { Session, SessionRegistry } from './core/session.js';

/** What an endpoint answers from besides its upstream: the rules and the cassette, when its mode has them. */
export interface SourceOptions {
  rules?: RuleSource;
  cassette?: CassetteSource;
  /** serverInfo of the initialize the proxy answers itself */
  serverInfo: { name: string; version: string };
}

/**
 * The answer sources of an endpoint — the upstream, the cassette, the rules, the proxy itself — as the endpoint
 * dispatches to them: each offers what it can answer (plan.ts decides who answers, purely), and the source a POST is
 * planned to delivers it (mockttp's rule steps, Polly's adapters). The endpoint knows none of them by name.
 */
export class Sources {
  private readonly upstream: UpstreamDelivery;
  private readonly delivery: Record<'upstream' | 'local', AnswerSource>;

  constructor(
    private readonly stage: Stage,
    sessions: SessionRegistry,
    ownSessions: boolean,
    private readonly options: SourceOptions,
  ) {
    this.upstream = new UpstreamDelivery(stage, sessions, ownSessions);
    this.delivery = { upstream: this.upstream, local: { deliver: deliverHere } };
  }

  /** Resolves once every source can make its offers for these exchanges (none: any request); undefined: at once. */
  prepare(exchanges?: readonly LiveExchange[]): Promise<unknown> | undefined {
    const cassette = this.options.cassette;
    if (!cassette) return undefined;
    if (!exchanges?.length) return cassette.prepare(undefined);
    let waits: Array<Promise<void>> | undefined;
    for (const exchange of exchanges) {
      const wait = cassette.prepare(exchange);
      if (wait) (waits ??= []).push(wait);
    }
    return waits && Promise.all(waits);
  }

  /**
   * Who answers this request: each source's offer, then the plan (pure), carried into the exchange (what the timeline
   * and the hooks read); a cassette whose entry was taken moves on.
   */
  plan(exchange: LiveExchange, session: Session, single: boolean): Plan {
    const { rules, cassette, serverInfo } = this.options;
    return planExchange(exchange, session, single, {
      rules,
      cassette,
      upstream: this.stage.upstream !== undefined,
      serverInfo,
    });
  }

  /** The source the POST is planned to delivers its answers. */
  deliver(post: Post): Promise<void> {
    const forwardsMessages =
      post.planned.length === 0 && this.stage.upstream !== undefined && post.session?.upstreamId !== undefined;
    const by = planDelivery(
      post.planned.map((p) => p.plan),
      { forwardsMessages },
    );
    return by === 'cassette' ? this.options.cassette!.deliver(post) : this.delivery[by].deliver(post);
  }

  /** A POST no hook wants to read: piped to the upstream unparsed. */
  pipe(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.upstream.pipe(req, res);
  }

  /**
   * A POST that is not valid JSON-RPC: with a live upstream it is passed on unparsed and the server judges it; with
   * none, it is refused the way the recorded server did (`message`: the proxy's own words for it).
   */
  invalid(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    kind: RefusalKind,
    message: string,
    upstreamId: string | null | undefined,
  ): Promise<void> {
    if (this.stage.upstream) return this.upstream.invalid(req, res, body, kind, upstreamId);
    const refused = this.refusal(kind, message);
    sendJson(res, refused.status, refused.response);
    return Promise.resolve();
  }

  /** How a POST of this kind is refused: as the recorded server did, else in the TypeScript SDK's words. */
  refusal(kind: RefusalKind, detail?: string): Refused {
    return this.options.cassette?.refusal(kind, detail) ?? refusalFor(kind, undefined, undefined, detail);
  }

  refusesHead(
    headers: RequestHeaders,
    method: HttpVerb,
    batch?: boolean,
  ): { kind: RefusalKind; detail?: string } | undefined {
    return this.options.cassette?.refusesHead(headers, method, batch);
  }

  /** Some source pushes messages of its own on server streams: the rules (list_changed), the cassette (recorded notifications). */
  pushes(): boolean {
    return this.options.rules !== undefined || (this.options.cassette?.pushes() ?? false);
  }

  /** The client's replies to server→client requests a source asked itself: taken, never forwarded; how many. */
  takeReplies(session: Session, messages: JsonRpcMessage[]): number {
    return this.options.cassette?.takeReplies(session, messages) ?? 0;
  }

  /** A GET resuming a stream a source delivered (Last-Event-ID) and the client dropped: false when none did. */
  redeliver(session: Session, lastEventId: string, res: ServerResponse): boolean {
    return this.options.cassette?.redeliver(session, lastEventId, res) ?? false;
  }

  /** A server stream of the session opened: what the sources kept for one goes out on it. */
  streamOpened(session: Session, res: ServerResponse): void {
    this.options.cassette?.streamOpened(session, res);
  }
}
