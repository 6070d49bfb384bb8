import type { ServerResponse } from 'node:http';
import type { CassetteEntry, RefusalKind } from '../../../../shared/cassette/entry.js';
import {
  ErrorCode,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../../../shared/jsonrpc.js';
import {
  isKnownMethod,
  isModernRevision,
  metaVersion,
  missingInputCapabilities,
  REMOVED_IN_MODERN,
} from '../../../../shared/mcp-protocol.js';
import type { CassetteStore } from '../../cassette/store.js';
import { EMPTY_LIST_RESULTS, followUpKey, refusalKey } from '../../cassette/keys.js';
import type { ReplayMiss } from '../../../../shared/cassette/miss.js';
import { waits } from '../core/chain.js';
import type { CassetteOffer, CassetteSource, Hook, HttpVerb, Need, Post, Refused } from '../core/contract.js';
import type { LiveExchange, RequestHeaders } from '../core/exchange.js';
import { replayAnswer, type ReplaySpeed } from './replay-delivery.js';
import { playEntry, type Deliver } from './replay-messages.js';
import { newReplaySession, takeReplies, type ReplaySession } from './replay-session.js';
import {
  contextOf,
  modernRefusal,
  profileOf,
  refusalFor,
  refuse,
  unsupportedHeader,
  type RequestContext,
  type ServerProfile,
} from './replay-protocol.js';
import { awaitedCalls, CallWaiters } from '../core/call-order.js';
import { fitCapabilities } from '../core/list-capabilities.js';
import { acceptsBoth, missingCapability, negotiate } from './replay-negotiate.js';
import { ReplayMisses } from './replay-misses.js';
import { ReplayPartitions } from './replay-partitions.js';
import { asked, flushQueued, followUpMessage, followUpsDue, pushFollowUps } from './replay-follow-ups.js';
import type { Session } from '../core/session.js';
import type { RepeatPolicy } from '../../../../shared/replay-repeat.js';

/** What replay does once repeated identical requests have used every recorded answer. */

export interface ReplayOptions {
  repeat?: RepeatPolicy;
  /** dot paths into params ignored when matching (e.g. arguments.timestamp) */
  matchIgnore?: string[];
  /** --replay-timing: undefined (none) answers at once; a speed waits out the recorded delays ÷ speed */
  speed?: ReplaySpeed;
  /** --strict: every miss (lists and empty results too, ping aside) is a -32004 naming the closest recorded key and what differs */
  strict?: boolean;
  /** told of every miss (ping aside), with the closest recorded key (cassette/closest-key.ts) */
  onMiss?: (miss: ReplayMiss) => void;
}

/**
 * Answers requests from the cassette — as an answer source: it offers the recorded entry (or what replay answers
 * without one, or the refusal the recorded server would give) to the plan, moves its per-session cursor once the plan
 * took the entry, and delivers the entry as it travelled (replay-delivery.ts); as a hook, it pushes the server
 * notifications recorded after an exchange on the client's server stream once that exchange is answered again. What
 * it keeps of a session (the cursor, the replies it waits for, the streams it played) is its own. It behaves like the
 * recorded server at the protocol level: the revision of the request picks the entries (never an answer of the other
 * era), `initialize` negotiates against the revisions the cassette holds, a 2026-07-28 request passes the checks of
 * its revision, unknown methods get the server's answer.
 */
export class Replayer implements CassetteSource, Hook {
  readonly name = 'replayer';
  private readonly repeat: RepeatPolicy;
  private readonly speed: ReplaySpeed;
  private readonly strict: boolean;
  /** finding a request's entries, and what replay answers without one (replay-misses.ts) */
  private readonly misses: ReplayMisses;
  /** what the replay keeps of each client session */
  private readonly sessions = new WeakMap<Session, ReplaySession>();
  /** the calls answered, for listen streams that wait for the call their message followed */
  private readonly calls = new CallWaiters();
  /** the keys those streams wait for, until the cassette changes: only these are counted */
  private awaited?: { revision: number; keys: ReadonlySet<string> };
  private cachedProfile?: { revision: number; profile: ServerProfile };
  /** the applicable entries of a key's list, by key and revision, until the cassette changes (replay-partitions.ts) */
  private readonly partitions: ReplayPartitions;

  constructor(
    private readonly store: CassetteStore,
    options: ReplayOptions = {},
  ) {
    this.repeat = options.repeat ?? 'last';
    this.speed = options.speed;
    this.strict = options.strict === true;
    const misses = { matchIgnore: options.matchIgnore ?? [], strict: this.strict, onMiss: options.onMiss };
    this.misses = new ReplayMisses(store, misses, () => this.profile());
    this.partitions = new ReplayPartitions(store);
    void store.indexed.then(
      () => (this.indexed = true),
      () => {},
    );
  }

  /** the cassette is fully indexed (names and content): nothing waits any more */
  private indexed = false;

  /** What the cassette says of the recorded server (recomputed when the cassette changed; a few key lookups). */
  profile(): ServerProfile {
    const revision = this.store.revision;
    if (this.cachedProfile?.revision !== revision) this.cachedProfile = { revision, profile: profileOf(this.store) };
    return this.cachedProfile.profile;
  }

  private stateOf(session: Session): ReplaySession {
    let state = this.sessions.get(session);
    if (!state) this.sessions.set(session, (state = newReplaySession()));
    return state;
  }

  /** Does the cassette hold any server notification to push? (decides whether replay offers a GET stream) */
  pushes(): boolean {
    return this.store.followUpKeys > 0;
  }

  /** The first entry of a key, without moving the replay cursor. */
  peek(key: string): CassetteEntry | undefined {
    return this.store.lookup(key)?.[0];
  }

  /**
   * The recorded entry for a request, or undefined — without moving the cursor. Only entries of the request's
   * revision (else era) count; repeated identical requests walk them in order, then, by policy, keep answering with
   * the last (default), start over (cycle), or miss.
   */
  private pick(exchange: LiveExchange, session: Session, ctx: RequestContext): CassetteEntry | undefined {
    let all = this.misses.find(exchange.request, exchange.key);
    if (!all?.length) return undefined;
    let suffix = '';
    if (EMPTY_LIST_RESULTS.has(exchange.request.method)) {
      // a list is answered by those recorded for the client's capabilities (list-capabilities.ts)
      const fit = fitCapabilities(all, ctx.capabilities);
      if (fit.mismatch && this.strict) return undefined; // the miss names the difference (replay-misses.ts)
      if (fit.mismatch) exchange.timeline.flags.push(`replayed a list ${fit.mismatch}`);
      all = fit.entries;
      suffix = fit.cursorSuffix;
    }
    const { entries, cursor } = this.partitions.of(all, ctx, suffix);
    if (!entries.length) return undefined;
    exchange.delivery.cursor = cursor;
    const served = this.sessions.get(session)?.served.get(cursor) ?? 0;
    if (served < entries.length) return entries[served];
    if (this.repeat === 'cycle') return entries[served % entries.length];
    if (this.repeat === 'error') return undefined;
    return entries[entries.length - 1];
  }

  /**
   * While the cassette is being indexed (a proxy answers at once, also on a large cassette): every request waits for
   * the name index, and one whose exact key is not recorded waits for the loose keys too, before it is called a miss.
   */
  prepare(exchange: LiveExchange | undefined): Promise<void> | undefined {
    if (this.indexed) return undefined;
    if (!this.store.isReady) return this.store.ready;
    if (!exchange || this.store.isIndexed || this.store.has(exchange.key)) return undefined;
    return this.store.indexed;
  }

  offer(exchange: LiveExchange, session: Session): CassetteOffer {
    const { request } = exchange;
    const modern =
      metaVersion(request.params) !== undefined || isModernRevision(exchange.headers.protocolVersion ?? '');
    if (modern) {
      const refused = this.modernChecks(exchange);
      if (refused) return { refuse: refused };
    }
    if (request.method === 'initialize') return negotiate(this.store, exchange, (e) => this.miss(e.request, e.key));
    const ctx = contextOf(
      request,
      session.protocolVersion ?? exchange.headers.protocolVersion,
      session.initParams?.capabilities as Record<string, unknown> | undefined,
    );
    const entry = this.pick(exchange, session, ctx);
    if (entry) {
      const lacking = entry.error ? undefined : missingInputCapabilities(entry.result, ctx.capabilities);
      if (lacking) return { refuse: missingCapability(request, entry.result, lacking) };
      return { entry };
    }
    return { miss: () => this.misses.missFor(exchange, ctx) };
  }

  take(exchange: LiveExchange, session: Session): void {
    const { cursor } = exchange.delivery;
    if (cursor === undefined) return;
    const { served } = this.stateOf(session);
    served.set(cursor, (served.get(cursor) ?? 0) + 1);
  }

  /** A request alone in its POST, planned to the cassette: its entry is played back as it travelled. */
  async deliver(post: Post): Promise<void> {
    const { exchange, plan } = post.planned[0];
    if (plan.answer !== 'cassette') throw new Error(`replayer: asked to deliver a ${plan.answer} answer`);
    if (waits(exchange.delivery.need)) await post.stage.hooks.respond(exchange, post.planSession, post.res);
    const headers =
      exchange === post.init
        ? post.sessions.initializedHere(exchange, post.session, plan.entry.stateless === true)
        : {};
    await replayAnswer({
      stage: post.stage,
      session: post.planSession,
      state: this.stateOf(post.planSession),
      exchange,
      entry: plan.entry,
      res: post.res,
      accept: post.head.accept,
      headers,
      speed: this.speed,
      usualFraming: this.profile().framing,
      calls: this.calls,
    });
    // the answer is out: a listen stream's message that followed it may go
    if (this.awaitedKeys().has(exchange.key)) this.calls.answered(exchange.key);
  }

  private awaitedKeys(): ReadonlySet<string> {
    const revision = this.store.revision;
    if (this.awaited?.revision !== revision) this.awaited = { revision, keys: awaitedCalls(this.store) };
    return this.awaited.keys;
  }

  /**
   * Plays the entry the plan took back to an in-process client, message by message (the library's wrapTransport),
   * then the follow-ups due after this answer (`followUpsAfter`, taken when the request came): requests among them
   * are asked of the client, their replies taken.
   */
  play(
    exchange: LiveExchange,
    entry: CassetteEntry,
    session: Session,
    deliver: Deliver,
    followUps: readonly CassetteEntry[],
  ): Promise<void> {
    const state = this.stateOf(session);
    return playEntry(exchange, entry, state, deliver, () => followUps.map((e) => asked(state, followUpMessage(e))));
  }

  /** What followed the n-th answer of this key in the recording follows its n-th answer here, once (after take()). */
  followUpsAfter(exchange: LiveExchange, session: Session): readonly CassetteEntry[] {
    const { cursor } = exchange.delivery;
    const answer = cursor === undefined ? 1 : (this.stateOf(session).served.get(cursor) ?? 1);
    return followUpsDue(this.store, exchange.key, answer);
  }

  takeReplies(session: Session, messages: JsonRpcMessage[]): number {
    const state = this.sessions.get(session);
    return state && state.replies.size > 0 ? takeReplies(state, messages) : 0;
  }

  redeliver(session: Session, lastEventId: string, res: ServerResponse): boolean {
    const state = this.sessions.get(session);
    const event = state?.eventIds.get(lastEventId);
    const stream = event && state?.played.get(event.stream);
    if (!event || !stream) return false;
    stream.resume(event.at, res);
    return true;
  }

  streamOpened(session: Session, res: ServerResponse): void {
    flushQueued(this.sessions.get(session), res);
  }

  /** Wants every request (a hook that reads the cassette is never piped past); observes hits with follow-ups. */
  need(exchange?: LiveExchange): Need {
    if (!exchange) return 'observe';
    return exchange.delivery.source === 'cache' &&
      this.store.followUpKeys > 0 &&
      this.store.has(followUpKey(exchange.key))
      ? 'observe'
      : 'none';
  }

  /** Replay: what the server sent on its GET stream after this exchange goes out on the client's, after the answer. */
  onResponse(exchange: LiveExchange, session: Session | undefined): void {
    if (!session) return; // need() said 'observe' only for a key with follow-ups: followUpsAfter looks them up
    const due = this.followUpsAfter(exchange, session);
    if (due.length) pushFollowUps(session, this.stateOf(session), due);
  }

  /** The answer to a request with no entry: an empty page for list methods, {} for result-less methods, else an error. */
  miss(request: JsonRpcRequest, key: string): JsonRpcResponse {
    return this.misses.miss(request, key);
  }

  refusal(kind: RefusalKind, detail?: string): Refused {
    return refusalFor(kind, this.store, this.profile(), detail);
  }

  /**
   * A 2025-era request the recorded server would refuse as a whole: a POST whose Accept lacks JSON or SSE (406), one
   * with no session (400) — only when the cassette holds that refusal (the server made it), in its order — or an
   * MCP-Protocol-Version it did not negotiate (400); a DELETE, when the server refused one (405: a stateless server); a batch, when the
   * server refused one (400: it takes single messages only).
   */
  refusesHead(
    headers: RequestHeaders,
    method: HttpVerb,
    batch = false,
  ): { kind: RefusalKind; detail?: string } | undefined {
    if (method === 'DELETE' && this.recorded('delete-not-allowed')) return { kind: 'delete-not-allowed' };
    const post = method === 'POST';
    if (post && this.recorded('not-acceptable') && !acceptsBoth(headers.accept)) return { kind: 'not-acceptable' };
    if (post && headers.sessionId === undefined && this.recorded('not-initialized')) return { kind: 'not-initialized' };
    if (batch && this.recorded('batch-refused')) return { kind: 'batch-refused' };
    return unsupportedHeader(headers.protocolVersion, () => this.profile())
      ? { kind: 'unsupported-protocol-version', detail: headers.protocolVersion }
      : undefined;
  }

  private recorded(kind: RefusalKind): boolean {
    return this.store.has(refusalKey(kind));
  }

  /** The checks of a 2026-07-28 request, and a method that revision does not have (404 + -32601). */
  private modernChecks(exchange: LiveExchange): Refused | undefined {
    const { request, key } = exchange;
    const recorded = this.store.lookup(key);
    const refused = modernRefusal(request, exchange.headers, this.profile(), recorded);
    if (refused) return refused;
    if (REMOVED_IN_MODERN.has(request.method) || (!isKnownMethod(request.method, 'modern') && !recorded)) {
      const own = this.misses.methodNotFound(request);
      return own ?? refuse(404, request.id, ErrorCode.MethodNotFound, 'Method not found');
    }
    return undefined;
  }
}
