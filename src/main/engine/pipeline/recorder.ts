import type { DebugFiles } from '../cassette/persist/persister.js';
import type { CassetteStore } from '../cassette/store.js';
import type { JsonRpcNotification } from '../../../shared/jsonrpc.js';
import { canonicalJson, followUpKey } from '../cassette/keys.js';
import { redactHeaders, scrub } from '../cassette/redact.js';
import type { Log } from '../log.js';
import type { ExchangeDetail, Hook, Need } from './contract.js';
import type { LiveExchange } from './exchange.js';
import type { Session } from './session.js';

/**
 * Decides what a finished live exchange adds to the cassette, mcp-rewind's way: a key already cached is skipped,
 * except that a tools/call whose result hash is new for its key is added as a further entry (replayed in order).
 * As a hook it observes what the upstream answered (never what the proxy or the cassette answered) and the server
 * notifications of GET streams, filed after the exchange the session finished last. A failed write is logged, in
 * this one place, and the client gets its answer all the same.
 */
export class Recorder implements Hook {
  readonly name = 'recorder';
  readonly wantsDetail = true;
  /** key#resultHash of saves in flight, so two concurrent identical calls record once */
  private readonly inFlight = new Set<string>();

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
  need(exchange: LiveExchange): Need {
    if (exchange.source !== 'upstream') return 'none';
    return this.store.durable ? 'commit' : 'observe';
  }

  async onResponse(exchange: LiveExchange, session: Session | undefined, detail: ExchangeDetail | undefined): Promise<void> {
    if (exchange.source !== 'upstream') return; // the upstream did not answer after all (it was down)
    if (session) session.lastKey = exchange.key;
    try {
      exchange.cassette = await this.save(exchange, detail && { ...detail, request: { ...detail.request, headers: redactHeaders(detail.request.headers) }, responseHead: { ...detail.responseHead, headers: redactHeaders(detail.responseHead.headers) } });
    } catch (error) {
      this.log(`cassette: could not record ${exchange.key}: ${(error as Error).message}`, 'warn');
    }
  }

  onServerMessage(message: JsonRpcNotification, session: Session): void {
    this.saveFollowUp(session.lastKey ?? 'initialize', message).catch((error: Error) => this.log(`cassette: could not record ${message.method}: ${error.message}`, 'warn'));
  }

  private readonly writing = new Set<Promise<unknown>>();

  /** Resolves when every save started so far is on disk, debug files included. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writing]);
    await this.store.flush().catch((error: Error) => this.log(`cassette: could not write debug files: ${error.message}`, 'warn'));
  }

  /**
   * Files a server notification that arrived outside any request after the exchange `afterKey`; replay sends it
   * after answering that exchange again. An identical notification already filed there is skipped.
   */
  saveFollowUp(afterKey: string, notification: JsonRpcNotification): Promise<'recorded' | 'skipped'> {
    const key = followUpKey(afterKey);
    const text = canonicalJson({ method: notification.method, params: notification.params ?? {} });
    const existing = this.store.lookup(key);
    if (existing?.some((e) => canonicalJson({ method: e.method, params: e.params ?? {} }) === text) || this.inFlight.has(`${key}#${text}`)) return Promise.resolve('skipped');
    this.inFlight.add(`${key}#${text}`);
    const saving = this.store
      .add(notification.method, key, scrub({ method: notification.method, params: notification.params ?? {}, result: {}, recordedAt: new Date().toISOString() }, this.redactions))
      .then(() => 'recorded' as const)
      .finally(() => this.inFlight.delete(`${key}#${text}`));
    this.writing.add(saving);
    void saving.finally(() => this.writing.delete(saving)).catch(() => {});
    return saving;
  }

  save(exchange: LiveExchange, debug: DebugFiles | undefined): Promise<'recorded' | 'skipped' | 'none'> {
    const saving = this.trySave(exchange, debug);
    this.writing.add(saving);
    void saving.finally(() => this.writing.delete(saving)).catch(() => {});
    return saving;
  }

  private async trySave(exchange: LiveExchange, debug: DebugFiles | undefined): Promise<'recorded' | 'skipped' | 'none'> {
    const { request, key } = exchange;
    const response = exchange.upstreamResponse ?? exchange.response;
    if (!response || !('result' in response)) return 'none'; // errors are not replayed
    if (request.params?.task !== undefined || 'task' in response.result) return 'none'; // a CreateTaskResult is not the answer
    if (!this.store.isReady) await this.store.ready; // what is recorded already: the whole folder, indexed by name
    const isToolCall = request.method === 'tools/call';
    const resultHash = isToolCall ? this.hashResult(response.result) : undefined;
    const existing = this.store.lookup(key);
    const duplicate = isToolCall ? existing?.some((e) => (e.resultHash ?? this.hashResult(e.result)) === resultHash) : existing !== undefined;
    const flightKey = `${key}#${resultHash ?? ''}`;
    if (duplicate || this.inFlight.has(flightKey)) return 'skipped';
    this.inFlight.add(flightKey);
    try {
      await this.store.add(
        request.method,
        key,
        scrub({
          result: response.result,
          resultHash,
          name: isToolCall ? String(request.params?.name ?? '') : undefined,
          arguments: isToolCall ? (request.params?.arguments ?? {}) : undefined,
          method: request.method,
          params: isToolCall ? undefined : stripMeta(request.params),
          recordedAt: new Date(exchange.startedAt).toISOString(),
          stream: exchange.stream.length ? exchange.stream.map((m) => m as unknown as Record<string, unknown>) : undefined,
        }, this.redactions),
        debug && scrub(debug, this.redactions),
      );
      return 'recorded';
    } finally {
      this.inFlight.delete(flightKey);
    }
  }
}

/** params without _meta (progress tokens and trace ids are per-call noise) */
function stripMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params) return undefined;
  const { _meta, ...rest } = params;
  return rest;
}
