import { isModernRevision } from '../mcp-protocol.js';
import { CASSETTE_ENTRY_SCHEMA_URL } from '../schema-urls.js';
import type { CassetteEntry } from './entry.js';

/** The inverse of parseDistilled: what is written to disk for a newly recorded exchange. */
const MCP_REWIND_BARE = new Set(['initialize', 'tools/list', 'resources/list', 'resources/templates/list']);

/** Can the entry be written as mcp-rewind's bare result, losing nothing replay answers differently without? */
function bareWillDo(method: string, entry: Omit<CassetteEntry, 'n' | 'key' | 'file'>): boolean {
  if (
    !MCP_REWIND_BARE.has(method) ||
    entry.params?.cursor !== undefined ||
    entry.stream?.length ||
    entry.error !== undefined
  )
    return false;
  if (entry.stateless || entry.framing?.resumedAfter !== undefined || entry.clientCapabilities) return false;
  return entry.protocolVersion === undefined || !isModernRevision(entry.protocolVersion);
}

export function distilledFor(method: string, entry: Omit<CassetteEntry, 'n' | 'key' | 'file'>): unknown {
  const stream = entry.stream?.length ? { stream: entry.stream } : {};
  const $schema = CASSETTE_ENTRY_SCHEMA_URL;
  const answer =
    entry.error !== undefined
      ? { error: entry.error }
      : entry.unanswered
        ? { unanswered: true }
        : { result: entry.result };
  const extra: Record<string, unknown> = {};
  const fields = [
    'status',
    'protocolVersion',
    'framing',
    'timing',
    'stateless',
    'clientCapabilities',
    'afterCall',
    'streamAfter',
  ] as const;
  for (const field of fields) if (entry[field] !== undefined) extra[field] = entry[field];
  if (entry.refusal !== undefined)
    return { $schema, $rewind: 1, refusal: entry.refusal, ...answer, ...extra, recordedAt: entry.recordedAt };
  // a call the client cancelled keeps its request in the `$rewind` form (a tools/call entry answers with result or error)
  if (method === 'tools/call' && entry.unanswered) {
    const params = { name: entry.name, arguments: entry.arguments ?? {} };
    return { $schema, $rewind: 1, method, params, ...answer, ...extra, recordedAt: entry.recordedAt, ...stream };
  }
  if (method === 'tools/call') {
    const { name, arguments: args, resultHash, recordedAt, inputResponses, requestState } = entry;
    const round = inputResponses !== undefined || requestState !== undefined ? { inputResponses, requestState } : {};
    return { $schema, name, arguments: args ?? {}, ...round, ...answer, resultHash, ...extra, recordedAt, ...stream };
  }
  if (bareWillDo(method, entry)) return entry.result;
  return {
    $schema,
    $rewind: 1,
    method,
    params: entry.params ?? {},
    ...answer,
    ...extra,
    recordedAt: entry.recordedAt,
    ...stream,
  };
}
