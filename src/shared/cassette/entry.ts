import { z } from 'zod';
import { CASSETTE_ENTRY_SCHEMA_URL } from '../schema-urls.js';

/**
 * The distilled file `<n> <key>.json` — what replay needs.
 *
 * mcp-rewind compatibility decides the shape:
 * - tools/call entries are `{ name, arguments, result, resultHash }` (mcp-rewind >= result hashing; `name` is ours);
 *   mcp-rewind's older releases wrote the bare result, which is read as well.
 * - initialize and the first page of tools/list, resources/list, resources/templates/list — the methods mcp-rewind
 *   caches — are the bare JSON-RPC `result`, unless they carry a stream.
 * - every other entry is `{ "$rewind": 1, method, params, result, recordedAt, stream? }`: the request's params are
 *   kept so `verify` can send it again.
 * Extensions are extra fields, so old readers ignore them. `$schema` (an editor hint naming the JSON Schema) is one
 * of them, written only where the file is not the bare result: a bare result is sent to the client as it is.
 */
export const StreamedMessageSchema = z.looseObject({ jsonrpc: z.literal('2.0') });

export const ToolCallEntrySchema = z.looseObject({
  name: z.string().optional(),
  arguments: z.unknown().optional(),
  result: z.record(z.string(), z.unknown()),
  resultHash: z.string().optional(),
  recordedAt: z.string().optional(),
  /** Messages the server streamed before its answer (notifications, server→client requests), in order. */
  stream: z.array(StreamedMessageSchema).optional(),
});
export type ToolCallEntry = z.infer<typeof ToolCallEntrySchema>;

export const WrappedEntrySchema = z.looseObject({
  $rewind: z.literal(1),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.record(z.string(), z.unknown()),
  recordedAt: z.string().optional(),
  stream: z.array(StreamedMessageSchema).optional(),
});

export const BareResultSchema = z.record(z.string(), z.unknown());

/** `$schema`: which JSON Schema an editor should validate the file against; never part of what is replayed. */
const SchemaRefSchema = z.string().optional();

/**
 * Any distilled file, as the published JSON Schema describes it (schemas/cassette-entry.schema.json): a `$rewind`
 * entry, a tools/call entry (its `result` is what is replayed), or a bare result (which then has neither).
 */
export const CassetteEntryFileSchema = z.union([
  WrappedEntrySchema.extend({ $schema: SchemaRefSchema }),
  ToolCallEntrySchema.extend({ $schema: SchemaRefSchema, $rewind: z.never().optional() }),
  z.looseObject({ $schema: SchemaRefSchema, $rewind: z.never().optional(), result: z.never().optional(), resultHash: z.never().optional() }),
]);

/** What the engine keeps in memory for one distilled file. */
export interface CassetteEntry {
  /** sequence number: the `<n>` of the file name */
  n: number;
  /** the (file-safe) key: the part of the file name between `<n> ` and `.json` */
  key: string;
  /** file name inside the cassette folder */
  file: string;
  result: Record<string, unknown>;
  resultHash?: string;
  /** the request's method and params, where the file keeps them ($rewind wrapper; tools/call name + arguments) */
  method?: string;
  params?: Record<string, unknown>;
  name?: string;
  arguments?: unknown;
  stream?: Array<Record<string, unknown>>;
  recordedAt?: string;
}

/** Turns the parsed content of a distilled file into an entry; throws with a readable message when it is not one. */
export function parseDistilled(n: number, key: string, file: string, data: unknown): CassetteEntry {
  const base = { n, key, file };
  if (typeof data === 'object' && data !== null && '$rewind' in data) {
    const e = WrappedEntrySchema.parse(data);
    return { ...base, result: e.result, method: e.method, params: e.params, stream: e.stream, recordedAt: e.recordedAt };
  }
  if (key.startsWith('tools_call_') && typeof data === 'object' && data !== null && 'result' in data) {
    const e = ToolCallEntrySchema.parse(data);
    return { ...base, method: 'tools/call', result: e.result, resultHash: e.resultHash, name: e.name, arguments: e.arguments, stream: e.stream, recordedAt: e.recordedAt };
  }
  const result = BareResultSchema.parse(data);
  if (typeof result.$schema !== 'string') return { ...base, result };
  const { $schema: _editorHint, ...rest } = result; // a `$schema` added by hand is not part of the replayed result
  return { ...base, result: rest };
}

/** What a distilled file says about its request, read without checking the rest of it (the cassette index's pass). */
export type EntryRequestFields = Pick<CassetteEntry, 'key' | 'method' | 'params' | 'name' | 'arguments'>;

/** The request fields parseDistilled would give a file, without validating it (a full parse follows on first use). */
export function requestFieldsOf(key: string, data: unknown): EntryRequestFields {
  if (typeof data !== 'object' || data === null) return { key };
  const d = data as Record<string, unknown>;
  if ('$rewind' in d) return { key, method: typeof d.method === 'string' ? d.method : undefined, params: d.params as Record<string, unknown> | undefined };
  if (key.startsWith('tools_call_') && 'result' in d) return { key, method: 'tools/call', name: typeof d.name === 'string' ? d.name : undefined, arguments: d.arguments };
  return { key };
}

/** The inverse of parseDistilled: what is written to disk for a newly recorded exchange. */
const MCP_REWIND_BARE = new Set(['initialize', 'tools/list', 'resources/list', 'resources/templates/list']);

export function distilledFor(method: string, entry: Omit<CassetteEntry, 'n' | 'key' | 'file'>): unknown {
  const stream = entry.stream?.length ? { stream: entry.stream } : {};
  const $schema = CASSETTE_ENTRY_SCHEMA_URL;
  if (method === 'tools/call') {
    const { name, arguments: args, result, resultHash, recordedAt } = entry;
    return { $schema, name, arguments: args ?? {}, result, resultHash, recordedAt, ...stream };
  }
  if (MCP_REWIND_BARE.has(method) && entry.params?.cursor === undefined && !entry.stream?.length) return entry.result;
  return { $schema, $rewind: 1, method, params: entry.params ?? {}, result: entry.result, recordedAt: entry.recordedAt, ...stream };
}
