import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { closestOf, comparedPart, type RecordedRequest, type ReplayMiss } from '../../../shared/cassette/miss.js';
import { requestOfEntry } from './keys.js';
import { safeKey } from './safe-name.js';
import type { CassetteStore } from './store.js';

/** How many recorded keys a miss compares itself with (read from the cassette only on a miss). */
const CANDIDATES = 50;

/** The key group of a request's tool or method (key-index.ts keyGroup), and the prefix of its method's groups. */
function groupOf(request: Pick<JsonRpcRequest, 'method' | 'params'>): { group: string; prefix?: string } {
  const base = request.method.replaceAll('/', '_');
  if (request.method === 'tools/call' || request.method === 'prompts/get')
    return { group: `${base}_${safeKey(String(request.params?.name ?? ''))}`, prefix: `${base}_` };
  return { group: base };
}

/**
 * The recorded keys a miss is compared with, and the requests of those whose entry keeps it: the keys of the same tool or method, else (tools/call, prompts/get)
 * those of the other tools — from the store's key index, never a scan, at most CANDIDATES of them.
 */
function candidatesFor(
  store: CassetteStore,
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  key: string,
): { keys: string[]; requests: RecordedRequest[] } {
  const { group, prefix } = groupOf(request);
  let keys = store.nearKeys(group, key, CANDIDATES);
  if (keys.length === 0 && prefix) keys = store.nearKeysByPrefix(prefix, key, CANDIDATES);
  const requests: RecordedRequest[] = [];
  for (const k of keys) {
    const entry = store.lookup(k)?.[0];
    const recorded = entry && requestOfEntry(entry);
    if (recorded) requests.push({ key: k, ...recorded });
  }
  return { keys, requests };
}

/**
 * What replay knows of a request it has no answer for: what was asked, its key, how many answers were used up
 * (`exhausted`, --repeat error) and the closest recorded key with the differences (miss.ts closestOf; an entry that
 * does not keep its request — mcp-rewind's bare results — is named with no differences). The one description of a
 * miss: the strict JSON-RPC error, the CLI's miss log and summary, and the library's `misses()` and
 * `CassetteMissError` all read it.
 */
export function replayMiss(
  store: CassetteStore,
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  key: string,
  exhausted?: number,
): ReplayMiss {
  const asked = comparedPart(request.method, request.params);
  const tool = request.method === 'tools/call' ? String(request.params?.name ?? '') : undefined;
  const miss: ReplayMiss = { method: request.method, key, asked, ...(tool !== undefined ? { tool } : {}) };
  if (exhausted !== undefined) return { ...miss, exhausted };
  const { keys, requests } = candidatesFor(store, request, key);
  const closest =
    closestOf(request.method, request.params, requests) ??
    (keys.length ? { key: keys[0], differences: [] } : undefined);
  return closest ? { ...miss, closest } : miss;
}
