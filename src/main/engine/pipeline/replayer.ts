import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import type { CassetteStore } from '../cassette/store.js';
import { EMPTY_LIST_RESULTS, EMPTY_RESULT_METHODS, followUpKey, looseKeyFor } from '../cassette/keys.js';
import { safeKey } from '../cassette/safe-name.js';
import { ReplayMissError } from '../errors.js';
import type { CassetteOffer, Hook, Need, Plan } from './contract.js';
import type { LiveExchange } from './exchange.js';
import { pushToStreams } from './server-stream.js';
import type { Session } from './session.js';

/** What replay does once repeated identical requests have used every recorded answer. */
export type RepeatPolicy = 'last' | 'cycle' | 'error';

export interface ReplayOptions {
  repeat?: RepeatPolicy;
  /** dot paths into params ignored when matching (e.g. arguments.timestamp) */
  matchIgnore?: string[];
}

/**
 * Answers requests from the cassette — as a hook: it offers the recorded entry (or what replay answers without one)
 * to the plan, moves its per-session cursor once the plan took the entry, and pushes the server notifications
 * recorded after an exchange on the client's server stream once that exchange is answered again.
 */
export class Replayer implements Hook {
  readonly name = 'replayer';
  private readonly repeat: RepeatPolicy;
  private readonly matchIgnore: string[];

  constructor(
    private readonly store: CassetteStore,
    options: ReplayOptions = {},
  ) {
    this.repeat = options.repeat ?? 'last';
    this.matchIgnore = options.matchIgnore ?? [];
  }

  /** Server notifications recorded on the GET stream after the exchange `key`, in order. */
  followUps(key: string): JsonRpcNotification[] {
    return (this.store.lookup(followUpKey(key)) ?? []).map((e) => ({ jsonrpc: '2.0', method: e.method ?? '', params: e.params }));
  }

  /** Does the cassette hold any server notification to push? (decides whether replay offers a GET stream) */
  hasFollowUps(): boolean {
    return this.store.followUpKeys > 0;
  }

  /** The first entry of a key, without moving the replay cursor. */
  peek(key: string): CassetteEntry | undefined {
    return this.store.lookup(key)?.[0];
  }

  /**
   * The recorded entries answering a request: by its exact (mcp-rewind) key, else by its loose key (argument key
   * order and --match-ignore paths ignored; the store indexes entries by keys.ts looseKeyOfEntry with the same paths).
   */
  find(request: Pick<JsonRpcRequest, 'method' | 'params'>, key: string): readonly CassetteEntry[] | undefined {
    return this.store.lookup(key) ?? this.store.lookupLoose(looseKeyFor(request.method, request.params, this.matchIgnore));
  }

  /**
   * The recorded entry for a request, or undefined — without moving the cursor. Repeated identical requests walk the
   * recorded entries in order; then, by policy, keep answering with the last (default), start over (cycle), or miss.
   */
  pick(request: Pick<JsonRpcRequest, 'method' | 'params'>, key: string, session: Session): CassetteEntry | undefined {
    const entries = this.find(request, key);
    if (!entries?.length) return undefined;
    const served = session.replayCursor.get(entries[0].key) ?? 0;
    if (served < entries.length) return entries[served];
    if (this.repeat === 'cycle') return entries[served % entries.length];
    if (this.repeat === 'error') return undefined;
    return entries[entries.length - 1];
  }

  private advance(request: Pick<JsonRpcRequest, 'method' | 'params'>, key: string, session: Session): void {
    const cursor = this.find(request, key)?.[0]?.key;
    if (cursor !== undefined) session.replayCursor.set(cursor, (session.replayCursor.get(cursor) ?? 0) + 1);
  }

  readonly pushes = (): boolean => this.hasFollowUps();

  /**
   * While the cassette is being indexed (a proxy answers at once, also on a large cassette): every request waits for
   * the name index, and one whose exact key is not recorded waits for the loose keys too, before it is called a miss.
   */
  prepare(exchange: LiveExchange | undefined): Promise<void> | undefined {
    if (!this.store.isReady) return this.store.ready;
    if (!exchange || this.store.isIndexed || this.store.has(exchange.key)) return undefined;
    return this.store.indexed;
  }

  offerCassette(exchange: LiveExchange, session: Session): CassetteOffer {
    const entry = this.pick(exchange.request, exchange.key, session);
    return entry ? { entry } : { miss: () => this.miss(exchange.request, exchange.key) };
  }

  onPlanned(exchange: LiveExchange, plan: Plan, session: Session): void {
    if (plan.answer === 'cassette') this.advance(exchange.request, exchange.key, session);
  }

  need(exchange: LiveExchange): Need {
    return exchange.cassette === 'hit' && this.store.followUpKeys > 0 && this.store.lookup(followUpKey(exchange.key)) ? 'observe' : 'none';
  }

  /** Replay: the server notifications recorded after this exchange go out on the client's server stream, after the answer. */
  onResponse(exchange: LiveExchange, session: Session | undefined): void {
    const followUps = this.followUps(exchange.key);
    if (!followUps.length || !session) return;
    setImmediate(() => {
      for (const message of followUps) pushToStreams(session, message, true);
    });
  }

  /** The answer to a request with no entry: an empty page for list methods, {} for result-less methods, else an error. */
  miss(request: JsonRpcRequest, key: string): JsonRpcResponse {
    const empty = EMPTY_LIST_RESULTS[request.method] ?? (EMPTY_RESULT_METHODS.has(request.method) ? {} : undefined);
    if (empty) return { jsonrpc: '2.0', id: request.id, result: empty };
    const what = request.method === 'tools/call' ? `tools/call "${String(request.params?.name)}" with arguments ${JSON.stringify(request.params?.arguments ?? {})}` : request.method;
    const recorded = this.find(request, key);
    if (recorded?.length) {
      const message = `mcp-rewind: all ${recorded.length} recorded answer(s) for ${what} were already used (key ${key}; --repeat error)`;
      return new ReplayMissError(message, { key, method: request.method, exhausted: recorded.length }).toResponse(request.id);
    }
    const nearest = this.nearest(request, key);
    const hint = nearest.length ? `; recorded for this ${request.method === 'tools/call' ? 'tool' : 'method'}: ${nearest.join(', ')}` : '';
    return new ReplayMissError(`mcp-rewind: no recorded answer for ${what} (key ${key})${hint}`, { key, method: request.method, nearest }).toResponse(request.id);
  }

  /** Keys recorded for the same tool (or method), to say what was there instead: from the store's index, never a scan. */
  private nearest(request: JsonRpcRequest, key: string): string[] {
    const group = request.method === 'tools/call' ? `tools_call_${safeKey(String(request.params?.name ?? ''))}` : request.method.replaceAll('/', '_');
    return this.store.nearKeys(group, key, 5);
  }

}
