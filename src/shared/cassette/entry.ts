import { z } from 'zod';

/**
 * The distilled file `<n> <key>.json` — what replay needs.
 *
 * mcp-rewind compatibility decides the shape:
 * - tools/call entries are `{ arguments, result, resultHash }` (mcp-rewind >= result hashing);
 *   mcp-rewind's older releases wrote the bare result, which is read as well.
 * - every other method's entry is the bare JSON-RPC `result` object.
 * Extensions (recordedAt, stream) are extra fields of the tools/call wrapper, so old readers ignore them.
 * A non-tool entry that needs extensions is written as `{ "$rewind": 1, result, ... }`.
 */
export const StreamedMessageSchema = z.looseObject({ jsonrpc: z.literal('2.0') });

export const ToolCallEntrySchema = z.looseObject({
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
  result: z.record(z.string(), z.unknown()),
  recordedAt: z.string().optional(),
  stream: z.array(StreamedMessageSchema).optional(),
});

export const BareResultSchema = z.record(z.string(), z.unknown());

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
  arguments?: unknown;
  stream?: Array<Record<string, unknown>>;
  recordedAt?: string;
}

/** Turns the parsed content of a distilled file into an entry; throws with a readable message when it is not one. */
export function parseDistilled(n: number, key: string, file: string, data: unknown): CassetteEntry {
  const base = { n, key, file };
  if (typeof data === 'object' && data !== null && '$rewind' in data) {
    const e = WrappedEntrySchema.parse(data);
    return { ...base, result: e.result, stream: e.stream, recordedAt: e.recordedAt };
  }
  if (key.startsWith('tools_call_') && typeof data === 'object' && data !== null && 'result' in data) {
    const e = ToolCallEntrySchema.parse(data);
    return { ...base, result: e.result, resultHash: e.resultHash, arguments: e.arguments, stream: e.stream, recordedAt: e.recordedAt };
  }
  return { ...base, result: BareResultSchema.parse(data) };
}

/** The inverse of parseDistilled: what is written to disk for a newly recorded exchange. */
export function distilledFor(method: string, entry: Omit<CassetteEntry, 'n' | 'key' | 'file'>): unknown {
  if (method === 'tools/call') {
    const { arguments: args, result, resultHash, recordedAt, stream } = entry;
    return { arguments: args ?? {}, result, resultHash, recordedAt, ...(stream?.length ? { stream } : {}) };
  }
  if (entry.stream?.length) return { $rewind: 1, result: entry.result, recordedAt: entry.recordedAt, stream: entry.stream };
  return entry.result;
}
