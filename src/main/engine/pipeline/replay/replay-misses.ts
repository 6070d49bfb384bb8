import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import { errorResponse, ErrorCode, type JsonRpcRequest, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { isKnownMethod } from '../../../../shared/mcp-protocol.js';
import { describeMiss, type ReplayMiss } from '../../../../shared/cassette/miss.js';
import type { CassetteStore } from '../../cassette/store.js';
import { EMPTY_LIST_RESULTS, EMPTY_RESULT_METHODS, looseKeyFor } from '../../cassette/keys.js';
import { safeKey } from '../../cassette/safe-name.js';
import { replayMiss } from '../../cassette/closest-key.js';
import { ReplayMissError } from '../../errors.js';
import type { Refused } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { fitCapabilities } from '../core/list-capabilities.js';
import { refusalFor, type RequestContext, type ServerProfile } from './replay-protocol.js';

export interface MissOptions {
  /** --match-ignore: dot paths into params ignored when matching */
  matchIgnore: string[];
  /** --strict: every miss (ping aside) is a -32004 naming the closest recorded key */
  strict: boolean;
  onMiss?: (miss: ReplayMiss) => void;
}

/**
 * How replay finds a request's recorded entries, and what it answers when none fits: the recorded server's refusal,
 * its -32601, an empty list, or mcp-rewind's -32004 naming what was recorded instead (the Replayer's misses).
 */
export class ReplayMisses {
  constructor(
    private readonly store: CassetteStore,
    private readonly options: MissOptions,
    private readonly profile: () => ServerProfile,
  ) {}

  /**
   * The recorded entries answering a request: by its exact (mcp-rewind) key, else by its loose key (argument key
   * order and --match-ignore paths ignored; the store indexes entries by keys.ts looseKeyOfEntry with the same paths).
   */
  find(request: Pick<JsonRpcRequest, 'method' | 'params'>, key: string): readonly CassetteEntry[] | undefined {
    return (
      this.store.lookup(key) ??
      this.store.lookupLoose(looseKeyFor(request.method, request.params, this.options.matchIgnore))
    );
  }

  /**
   * No entry: a 2026-07-28 request to a cassette of a 2025-only server gets that server's refusal (so a negotiating
   * client falls back to initialize, as it did live); a request carrying a requestState no recorded answer issued is
   * refused as forged; a method the server did not have gets its -32601; else mcp-rewind's miss answers.
   */
  missFor(exchange: LiveExchange, ctx: RequestContext): { response: JsonRpcResponse; status?: number } {
    const { request, key } = exchange;
    const profile = this.profile();
    if (ctx.era === 'modern' && profile.modern.length === 0 && profile.legacy.length > 0) {
      const refused = refusalFor('not-initialized', this.store, profile);
      return { response: refused.response, status: refused.status };
    }
    const state = request.params?.requestState;
    if (typeof state === 'string' && !this.store.issuedState(state)) {
      return {
        response: errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid or expired requestState', {
          reason: 'invalid_request_state',
        }),
      };
    }
    const notFound = this.methodNotFound(request);
    if (notFound) return { response: notFound.response, status: notFound.status === 200 ? undefined : notFound.status };
    const mismatch = this.options.strict ? this.capabilityMismatch(request, key, ctx) : undefined;
    if (mismatch) return { response: mismatch };
    if (!isKnownMethod(request.method, ctx.era) && !EMPTY_LIST_RESULTS.has(request.method)) {
      return {
        response: errorResponse(request.id, ErrorCode.MethodNotFound, 'Method not found'),
        status: ctx.era === 'modern' ? 404 : undefined,
      };
    }
    return { response: this.miss(request, key) };
  }

  /** The answer to a request with no entry: an empty page for list methods, {} for result-less methods, else an error. */
  miss(request: JsonRpcRequest, key: string): JsonRpcResponse {
    const empty = EMPTY_LIST_RESULTS.get(request.method) ?? (EMPTY_RESULT_METHODS.has(request.method) ? {} : undefined);
    const told = request.method !== 'ping' && (this.options.strict || this.options.onMiss !== undefined);
    // looked up once: for the miss report, and for the error that says the recorded answers were used up
    const recorded = told || !empty ? this.find(request, key) : undefined;
    if (told) {
      const miss = replayMiss(this.store, request, key, recorded?.length ? recorded.length : undefined);
      this.options.onMiss?.(miss);
      if (this.options.strict)
        return new ReplayMissError(`mcp-rewind: no recorded answer for ${describeMiss(miss)}`, miss).toResponse(
          request.id,
        );
    }
    if (empty) return { jsonrpc: '2.0', id: request.id, result: empty };
    const what =
      request.method === 'tools/call'
        ? `tools/call "${String(request.params?.name)}" with arguments ${JSON.stringify(request.params?.arguments ?? {})}`
        : request.method;
    if (recorded?.length) {
      const message = `mcp-rewind: all ${recorded.length} recorded answer(s) for ${what} were already used (key ${key}; --repeat error)`;
      return new ReplayMissError(message, { key, method: request.method, exhausted: recorded.length }).toResponse(
        request.id,
      );
    }
    const nearest = this.nearest(request, key);
    const hint = nearest.length
      ? `; recorded for this ${request.method === 'tools/call' ? 'tool' : 'method'}: ${nearest.join(', ')}`
      : '';
    return new ReplayMissError(`mcp-rewind: no recorded answer for ${what} (key ${key})${hint}`, {
      key,
      method: request.method,
      nearest,
    }).toResponse(request.id);
  }

  /** --strict: a list recorded only for other client capabilities misses, saying which (list-capabilities.ts). */
  private capabilityMismatch(request: JsonRpcRequest, key: string, ctx: RequestContext): JsonRpcResponse | undefined {
    if (!EMPTY_LIST_RESULTS.has(request.method)) return undefined;
    const recorded = this.find(request, key);
    const mismatch = recorded?.length ? fitCapabilities(recorded, ctx.capabilities).mismatch : undefined;
    if (!mismatch) return undefined;
    const asked = request.params ? { ...request.params } : {};
    delete asked._meta;
    this.options.onMiss?.({ method: request.method, key, asked });
    const message = `mcp-rewind: no recorded answer for ${request.method} (key ${key}): ${mismatch}`;
    return new ReplayMissError(message, { key, method: request.method, asked }).toResponse(request.id);
  }

  /** The server's -32601 for this method, when the cassette recorded one (any params): from the store's index of error keys. */
  methodNotFound(request: JsonRpcRequest): Refused | undefined {
    const prefix = request.method.replaceAll('/', '_');
    for (const k of this.store.errorKeys(ErrorCode.MethodNotFound)) {
      if (k !== prefix && !k.startsWith(`${prefix}_`)) continue;
      const e = this.store.lookup(k)?.find((x) => x.error?.code === ErrorCode.MethodNotFound);
      if (e?.error)
        return {
          status: e.status ?? 200,
          response: errorResponse(request.id, e.error.code, e.error.message, e.error.data),
        };
    }
    return undefined;
  }

  /** Keys recorded for the same tool (or method), to say what was there instead: from the store's index, never a scan. */
  private nearest(request: JsonRpcRequest, key: string): string[] {
    const group =
      request.method === 'tools/call'
        ? `tools_call_${safeKey(String(request.params?.name ?? ''))}`
        : request.method.replaceAll('/', '_');
    return this.store.nearKeys(group, key, 5);
  }
}
