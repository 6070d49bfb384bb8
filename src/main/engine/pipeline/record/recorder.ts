import type { CassetteEntry, RefusalKind } from '../../../../shared/cassette/entry.js';
import { isRequest, type JsonRpcError, type JsonRpcMessage, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { conditionOf, eraOf, LEGACY_REVISIONS, metaVersion } from '../../../../shared/mcp-protocol.js';
import type { DebugFiles } from '../../cassette/persist/persister.js';
import type { CassetteStore } from '../../cassette/store.js';
import { canonicalJson, EMPTY_LIST_RESULTS, followUpKey, refusalKey } from '../../cassette/keys.js';
import { redactHeaders, scrub } from '../../redact.js';
import type { Log } from '../../log.js';
import type { ExchangeDetail, Hook, Need, ServerMessage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { AnsweredCalls } from '../core/call-order.js';
import { AskedOnStream } from './follow-up-asks.js';
import { FollowUpPlaces } from './follow-up-place.js';
import { listCapabilities, sameList } from '../core/list-capabilities.js';
import { wasCancelled, type Session } from '../core/session.js';
import { answerOf, entryOf } from './entry-of.js';

/**
 * Decides what a finished live exchange adds to the cassette, mcp-rewind's way: a key already cached is skipped,
 * except that a tools/call whose result hash is new for its key, or a list whose answer or client capabilities are
 * new for it (list-capabilities.ts), is added as a further entry (replayed in order).
 * Every answer counts: results and JSON-RPC errors (kept exactly), with the revision the exchange was made in (a key
 * recorded in another revision gets an entry of its own), how the answer travelled (framing) and when (timing). A
 * refusal of the whole POST (an error with `id: null`: unknown session, bad header) is filed once per kind.
 * As a hook it observes what the upstream answered (never what the proxy or the cassette answered) and what the
 * server sends on GET streams (notifications, and requests to the client filed with the client's reply), filed under
 * the call then in flight, else the one answered last (follow-up-place.ts). A failed write is logged, in
 * this one place, flagged on the exchange ("not recorded: ENOSPC", for the timeline and --verbose) and counted (the
 * CLI's record run then ends with exit status 1), and the client gets its answer all the same.
 */
export class Recorder implements Hook {
  readonly name = 'recorder';
  /** key#resultHash of saves in flight, so two concurrent identical calls record once */
  private readonly inFlight = new Set<string>();
  /** what could not be recorded so far: how many, and why the first did not */
  readonly failures: RecordFailures = { count: 0 };
  /** GET-stream requests waiting for the client's reply, to be filed with it (follow-up-asks.ts) */
  private readonly asked = new AskedOnStream();
  /** per client session, its calls: a server message on the GET stream is filed among them (follow-up-place.ts) */
  private readonly places = new FollowUpPlaces();
  /** when each call was answered: a listen stream's messages keep their place among them (call-order.ts) */
  private readonly calls = new AnsweredCalls();

  constructor(
    private readonly store: CassetteStore,
    private readonly hashResult: (result: unknown) => string,
    /** user-configured secret patterns (--redact), applied to everything written; hashes use the real values */
    private readonly redactions: readonly RegExp[] = [],
    private readonly log: Log = () => {},
  ) {}

  /**
   * What the upstream answered is recorded before the client gets it ('commit': its bytes wait, unchanged, until the
   * entry is on disk), so every answer a client saw survives a crash; with a store that does not fsync
   * (`--no-fsync`) the answer goes first and the entry is written after it.
   */
  need(exchange?: LiveExchange): Need {
    if (exchange && exchange.delivery.source !== 'upstream') return 'none';
    return this.store.durable ? 'commit' : 'observe';
  }

  /** the cassette's debug files are written from the exchange's detail (verify and HAR export read them) */
  wantsDetail(): boolean {
    return true;
  }

  async onResponse(
    exchange: LiveExchange,
    session: Session | undefined,
    detail: ExchangeDetail | undefined,
  ): Promise<void> {
    if (exchange.delivery.source !== 'upstream') return; // the upstream did not answer after all (it was down)
    if (session) this.places.answered(session, exchange.key);
    this.calls.note(exchange.key);
    const cancelled = wasCancelled(session, exchange.request.id);
    try {
      exchange.timeline.cassette = await this.save(
        exchange,
        cancelled,
        detail && {
          ...detail,
          request: { ...detail.request, headers: redactHeaders(detail.request.headers) },
          responseHead: { ...detail.responseHead, headers: redactHeaders(detail.responseHead.headers) },
        },
        listCapabilities(exchange.request, session?.initParams?.capabilities as Record<string, unknown> | undefined),
      );
    } catch (error) {
      exchange.timeline.flags.push(`not recorded: ${this.failed(exchange.key, error)}`);
    }
  }

  /** Logs and counts a write that failed; answers its reason in a word (the error code, else its message). */
  private failed(what: string, error: unknown): string {
    const e = error as NodeJS.ErrnoException;
    const reason = e.code ?? e.message;
    this.failures.count++;
    this.failures.first ??= `${what}: ${e.message}`;
    this.log(`cassette: could not record ${what}: ${e.message}`, 'warn');
    return reason;
  }

  onServerMessage(message: ServerMessage, session: Session): void {
    const place = this.places.placeOf(session);
    const file = (reply?: JsonRpcResponse): void =>
      void this.saveFollowUp(place.key, message, place.afterCall, reply).catch(
        (error: Error) => void this.failed(message.method, error),
      );
    if (isRequest(message))
      this.asked.ask(session, message.id, file); // filed with the client's reply
    else file();
  }

  /** The client's replies on their way upstream: a GET-stream request they answer is filed with its reply. */
  onReplies(messages: JsonRpcMessage[], session: Session): Promise<boolean> {
    this.asked.replied(session, messages);
    return Promise.resolve(false);
  }

  private readonly writing = new Set<Promise<unknown>>();

  /** Resolves when every save started so far is on disk, debug files included. */
  async flush(): Promise<void> {
    this.asked.fileAll();
    await Promise.allSettled([...this.writing]);
    await this.store
      .flush()
      .catch((error: Error) => this.log(`cassette: could not write debug files: ${error.message}`, 'warn'));
  }

  /**
   * Files a server notification (or a request to the client: roots/list, kept with its id in `stream`) that arrived
   * outside any request after the `afterCall`-th answer of the exchange `afterKey`; replay sends it after answering
   * that exchange as many times. An identical message already filed there is skipped.
   */
  saveFollowUp(
    afterKey: string,
    notification: ServerMessage,
    afterCall = 1,
    reply?: JsonRpcResponse,
  ): Promise<'recorded' | 'skipped'> {
    const key = followUpKey(afterKey);
    const text = canonicalJson({ method: notification.method, params: notification.params ?? {}, afterCall });
    const flight = `${key}#${text}`;
    const existing = this.store.lookup(key);
    if (
      existing?.some(
        (e) => canonicalJson({ method: e.method, params: e.params ?? {}, afterCall: e.afterCall ?? 1 }) === text,
      ) ||
      this.inFlight.has(flight)
    )
      return Promise.resolve('skipped');
    this.inFlight.add(flight);
    const saving = this.store
      .add(
        notification.method,
        key,
        scrub(
          {
            method: notification.method,
            params: notification.params ?? {},
            result: {},
            recordedAt: new Date().toISOString(),
            ...(isRequest(notification) ? { stream: [{ ...notification }, ...(reply ? [{ ...reply }] : [])] } : {}),
            ...(afterCall > 1 ? { afterCall } : {}),
          },
          this.redactions,
        ),
      )
      .then(() => 'recorded' as const)
      .finally(() => this.inFlight.delete(flight));
    this.track(saving);
    return saving;
  }

  /** Files a finished exchange (`cancelled`: the client cancelled it, so an unanswered one is kept unanswered). */
  save(
    exchange: LiveExchange,
    cancelled: boolean,
    debug: DebugFiles | undefined,
    /** a list's: the capabilities its client declared (list-capabilities.ts) */
    clientCapabilities?: Record<string, unknown>,
  ): Promise<'recorded' | 'skipped' | 'none'> {
    const saving = this.trySave(exchange, cancelled, debug, clientCapabilities);
    this.track(saving);
    return saving;
  }

  /** Files the server's refusal of a request at the HTTP level (once per kind: the first one recorded stays). */
  onRefusal(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void {
    const key = refusalKey(kind);
    if (this.store.lookup(key) || this.inFlight.has(key)) return;
    this.inFlight.add(key);
    const saving = this.store
      .add(
        kind,
        key,
        scrub(
          {
            result: {},
            refusal: kind,
            error: refusal.error.error,
            status: refusal.status,
            recordedAt: new Date().toISOString(),
          },
          this.redactions,
        ),
      )
      .finally(() => this.inFlight.delete(key));
    this.track(saving);
    saving.catch((error: Error) => void this.failed(`the ${kind} refusal`, error));
  }

  private track(saving: Promise<unknown>): void {
    this.writing.add(saving);
    void saving.finally(() => this.writing.delete(saving)).catch(() => {});
  }

  private async trySave(
    exchange: LiveExchange,
    cancelled: boolean,
    debug: DebugFiles | undefined,
    clientCapabilities: Record<string, unknown> | undefined,
  ): Promise<'recorded' | 'skipped' | 'none'> {
    const { refusal } = exchange.delivery;
    if (refusal) {
      const kind = refusalKindOf(exchange);
      if (kind) this.onRefusal(kind, refusal);
      return 'none';
    }
    const answer = answerOf(exchange, cancelled);
    if (!answer) return 'none';
    if (!this.store.isReady) await this.store.ready; // what is recorded already: the whole folder, indexed by name
    const { request, key } = exchange;
    const isToolCall = request.method === 'tools/call';
    const isList = EMPTY_LIST_RESULTS.has(request.method);
    const resultHash = isToolCall && !answer.error ? this.hashResult(answer.result) : undefined;
    const version = exchange.protocolVersion;
    const condition = conditionOf(answer.error);
    const errorText = answer.error ? canonicalJson(answer.error) : undefined;
    const duplicate = this.store.lookup(key)?.some((e) => {
      if (!sameRevision(e, version, request.method) || conditionOf(e.error) !== condition) return false;
      // a list differs between sessions (other capabilities, a list_changed): each answer is kept, replayed in order
      if (isList && condition === undefined) return !answer.error && sameList(e, answer.result, clientCapabilities);
      if (!isToolCall || condition !== undefined) return true; // one answer per key (and per condition), as mcp-rewind records
      return e.error
        ? canonicalJson(e.error) === errorText
        : !answer.error && (e.resultHash ?? this.hashResult(e.result)) === resultHash;
    });
    const listed = isList && !answer.error ? canonicalJson([answer.result, clientCapabilities ?? {}]) : undefined;
    const flightKey = `${key}#${version ?? ''}#${condition ?? ''}#${resultHash ?? errorText ?? listed ?? ''}`;
    if (duplicate || this.inFlight.has(flightKey)) return 'skipped';
    this.inFlight.add(flightKey);
    try {
      const entry = entryOf(exchange, answer, resultHash);
      entry.clientCapabilities = clientCapabilities;
      entry.streamAfter = this.calls.streamAfter(exchange);
      const scrubbed = scrub(entry, this.redactions);
      await this.store.add(request.method, key, scrubbed, debug && scrub(debug, this.redactions));
      return 'recorded';
    } finally {
      this.inFlight.delete(flightKey);
    }
  }
}

/** The recordings that failed in a run (a full disk, a folder gone): how many, and the first one's reason. */
export interface RecordFailures {
  count: number;
  first?: string;
}

/** Is an entry of the same revision as a live exchange (initialize: the same negotiated version)? */
function sameRevision(entry: CassetteEntry, version: string | undefined, method: string): boolean {
  if (method === 'initialize')
    return entry.result.protocolVersion === version || (entry.error !== undefined && entry.protocolVersion === version);
  if (entry.protocolVersion === version) return true;
  // entries without a revision (mcp-rewind's, or recorded before revisions were kept) are 2025-era ones
  return (
    (entry.protocolVersion === undefined && eraOf(version) !== 'modern') ||
    (version === undefined && eraOf(entry.protocolVersion) !== 'modern')
  );
}

/**
 * Which refusal a POST got, when the upstream answered it at the HTTP level (an error with `id: null`): the same
 * situations replay recognises (unknown session — 404, or the 400 some servers give —, an unsupported protocol-version header,
 * no session yet, an Accept the server does not take, a batch from a server that takes single messages only).
 */
function refusalKindOf(exchange: LiveExchange): RefusalKind | undefined {
  const { status, batch } = exchange.delivery.refusal as { status: number; batch?: boolean };
  const headers = exchange.headers;
  if (status === 406) return 'not-acceptable';
  if (status === 404 && headers.sessionId !== undefined) return 'session-not-found';
  if (status !== 400) return undefined;
  const modern = metaVersion(exchange.request.params) !== undefined;
  if (
    !modern &&
    headers.protocolVersion !== undefined &&
    headers.sessionId !== undefined &&
    !LEGACY_REVISIONS.includes(headers.protocolVersion as never)
  )
    return 'unsupported-protocol-version';
  // a session the proxy saw ended, or never saw issued: how this server refuses an unknown session (some say 400)
  if (headers.sessionId !== undefined && exchange.delivery.staleSession) return 'session-not-found';
  // a batch refused: for its being a batch (a stateless server has no session to miss, a stateful one cannot say)
  if (batch) return 'batch-refused';
  if (headers.sessionId === undefined && exchange.request.method !== 'initialize') return 'not-initialized';
  return undefined;
}
