import { ErrorCode, errorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import type { CassetteStore } from '../cassette/store.js';
import { EMPTY_LIST_RESULTS, EMPTY_RESULT_METHODS } from '../cassette/keys.js';
import { safeKey } from '../cassette/safe-name.js';
import type { Session } from './session.js';

/** Answers requests from the cassette. */
export class Replayer {
  constructor(private readonly store: CassetteStore) {}

  /** The first entry of a key, without moving the replay cursor. */
  peek(key: string): CassetteEntry | undefined {
    return this.store.lookup(key)?.[0];
  }

  has(key: string): boolean {
    return this.store.lookup(key) !== undefined;
  }

  /**
   * The recorded entry for a request, or undefined. Repeated identical requests walk the recorded entries of their
   * key in order and then keep answering with the last one.
   */
  hit(key: string, session: Session): CassetteEntry | undefined {
    const entries = this.store.lookup(key);
    if (!entries?.length) return undefined;
    const served = session.replayCursor.get(key) ?? 0;
    session.replayCursor.set(key, served + 1);
    return entries[Math.min(served, entries.length - 1)];
  }

  /** The answer to a request with no entry: an empty page for list methods, {} for result-less methods, else an error. */
  miss(request: JsonRpcRequest, key: string): JsonRpcResponse {
    const empty = EMPTY_LIST_RESULTS[request.method] ?? (EMPTY_RESULT_METHODS.has(request.method) ? {} : undefined);
    if (empty) return { jsonrpc: '2.0', id: request.id, result: empty };
    const what = request.method === 'tools/call' ? `tools/call "${String(request.params?.name)}" with arguments ${JSON.stringify(request.params?.arguments ?? {})}` : request.method;
    const nearest = this.nearest(request, key);
    const hint = nearest.length ? `; recorded for this ${request.method === 'tools/call' ? 'tool' : 'method'}: ${nearest.join(', ')}` : '';
    return errorResponse(request.id, ErrorCode.ReplayMiss, `mcp-rewind: no recorded answer for ${what} (key ${key})${hint}`, { key, method: request.method, nearest });
  }

  /** Keys recorded for the same tool (or method), to say what was there instead. Scans only on a miss. */
  private nearest(request: JsonRpcRequest, key: string): string[] {
    const prefix = request.method === 'tools/call' ? `tools_call_${safeKey(String(request.params?.name ?? ''))}_` : request.method.replaceAll('/', '_');
    const found: string[] = [];
    for (const k of this.store.keys()) {
      if (k !== key && k.startsWith(prefix)) found.push(k);
      if (found.length >= 5) break;
    }
    return found;
  }
}
