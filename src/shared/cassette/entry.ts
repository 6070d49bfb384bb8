import { z } from 'zod';
import { REFUSAL_KINDS, type RefusalKind } from './refusal-kinds.js';

export { REFUSAL_KINDS, type RefusalKind } from './refusal-kinds.js';

/**
 * The distilled file `<n> <key>.json` — what replay needs.
 *
 * mcp-rewind compatibility decides the shape:
 * - tools/call entries are `{ name, arguments, result, resultHash }` (mcp-rewind >= result hashing; `name` is ours);
 *   mcp-rewind's older releases wrote the bare result, which is read as well.
 * - initialize and the first page of tools/list, resources/list, resources/templates/list — the methods mcp-rewind
 *   caches — are the bare JSON-RPC `result`, unless the bare form cannot carry what replay needs (a stream, an error,
 *   a 2026-07-28 exchange, a server without sessions, a resumed stream).
 * - every other entry is `{ "$rewind": 1, method, params, result, recordedAt, stream? }`: the request's params are
 *   kept so `verify` can send it again.
 * An answer that was a JSON-RPC error carries `error` (code, message, data exactly) instead of `result`, and `status`
 * when the HTTP status was not 200. Extensions are extra fields, so old readers ignore them. `$schema` (an editor hint
 * naming the JSON Schema) is one of them, written only where the file is not the bare result: a bare result is sent
 * to the client as it is.
 */
export const StreamedMessageSchema = z.looseObject({ jsonrpc: z.literal('2.0') });

/** A JSON-RPC error answer, exactly as the server sent it. */
export const RecordedErrorSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type RecordedError = z.infer<typeof RecordedErrorSchema>;

/** An SSE event id as a server may send it: one line (an id with a line break would forge other fields). */
const EventIdSchema = z
  .string()
  .max(1024)
  .regex(/^[^\r\n\0]*$/, 'an SSE event id is one line without NUL');

/** How the answer travelled: one JSON body, or an SSE stream (with event ids, a `retry` hint, a priming event). */
export const FramingSchema = z.object({
  type: z.enum(['json', 'sse']),
  /** the server's SSE events carried ids (the client may resume the stream with Last-Event-ID) */
  eventIds: z.boolean().optional(),
  /** the `retry:` field the server sent (ms the client waits before resuming) */
  retryMs: z.number().int().min(0).optional(),
  /** the stream opened with a priming event (an id and empty data: 2025-11-25) */
  priming: z.boolean().optional(),
  /** a JSON body of newline-delimited messages (chunked, no SSE framing): its streamed messages, then the answer, one a line */
  lines: z.boolean().optional(),
  /** the server closed the POST stream after this many messages; the rest arrived on the client's resumed stream */
  resumedAfter: z.number().int().min(0).optional(),
  /** the answer's members in the order the server wrote them, when not `jsonrpc, id, result|error` (`result, jsonrpc, id`) */
  envelope: z.array(z.string()).optional(),
  /** the server's SSE event ids, as it sent them: replay sends them again */
  ids: z
    .object({
      priming: EventIdSchema.optional(),
      /** per message of `stream`, the id of the event that carried it (null: the client's reply, or no id) */
      stream: z.array(EventIdSchema.nullable()).optional(),
      answer: EventIdSchema.optional(),
    })
    .optional(),
});
export type Framing = z.infer<typeof FramingSchema>;

/** When the answer came: ms from the request to the answer, and to each streamed message (for --replay-timing). */
export const TimingSchema = z.object({
  answerMs: z.number().min(0).optional(),
  streamMs: z.array(z.number().min(0)).optional(),
});
export type Timing = z.infer<typeof TimingSchema>;

/** Fields every recorded exchange may carry, whatever its shape. */
const ExchangeFields = {
  /** the JSON-RPC error the server answered with (then there is no `result`) */
  error: RecordedErrorSchema.optional(),
  /** the HTTP status of the answer, when it was not 200 (2026-07-28 errors travel with 400 or 404) */
  status: z.number().int().min(100).max(599).optional(),
  /** the protocol revision the exchange was made in (the request's `_meta`, or the session's negotiated version) */
  protocolVersion: z.string().optional(),
  framing: FramingSchema.optional(),
  timing: TimingSchema.optional(),
  /** initialize: the server issued no Mcp-Session-Id (a stateless server) */
  stateless: z.boolean().optional(),
  /**
   * no answer came: subscriptions/listen — the client closed the stream (the streamed notifications are the exchange);
   * any other request — the client cancelled it (notifications/cancelled) and the server never answered
   */
  unanswered: z.literal(true).optional(),
  /** a refusal entry (key `refusal_<kind>`): the server's answer to a POST it refused as a whole */
  refusal: z.enum(REFUSAL_KINDS).optional(),
  /** an `after_<key>` entry: it followed the session's n-th answer of that key (absent: the first) */
  afterCall: z.number().int().min(1).optional(),
  /** subscriptions/listen: for each streamed message, the key of the last call answered before it (null: none) */
  streamAfter: z.array(z.string().nullable()).optional(),
  /** a list (tools/list, …): the capabilities the client declared, since servers list by them (replay matches them) */
  clientCapabilities: z.record(z.string(), z.unknown()).optional(),
};

export const ToolCallEntrySchema = z.looseObject({
  name: z.string().optional(),
  arguments: z.unknown().optional(),
  /** a later round of a multi-round (input_required) call: the client's answers and the server's opaque state */
  inputResponses: z.record(z.string(), z.unknown()).optional(),
  requestState: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  resultHash: z.string().optional(),
  recordedAt: z.string().optional(),
  /** Messages the server streamed before its answer (notifications, server→client requests), in order. */
  stream: z.array(StreamedMessageSchema).optional(),
  ...ExchangeFields,
});
export type ToolCallEntry = z.infer<typeof ToolCallEntrySchema>;

export const WrappedEntrySchema = z.looseObject({
  $rewind: z.literal(1),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  recordedAt: z.string().optional(),
  stream: z.array(StreamedMessageSchema).optional(),
  ...ExchangeFields,
});

export const BareResultSchema = z.record(z.string(), z.unknown());

/** `$schema`: which JSON Schema an editor should validate the file against; never part of what is replayed. */
const SchemaRefSchema = z.string().optional();

/**
 * Any distilled file, as the published JSON Schema describes it (schemas/cassette-entry.schema.json): a `$rewind`
 * entry, a tools/call entry (its `result` is what is replayed), or a bare result (which then has neither).
 */
/** A `$rewind` entry as the file holds it; it answers with `result`, `error`, or a stream the client ended (`unanswered`). */
export const WrappedEntryFileSchema = WrappedEntrySchema.extend({ $schema: SchemaRefSchema });
/** A tools/call entry as the file holds it (`result` or `error`). */
export const ToolCallEntryFileSchema = ToolCallEntrySchema.extend({
  $schema: SchemaRefSchema,
  $rewind: z.never().optional(),
});
/** JSON Schema for what zod cannot say: an entry answers with one of these (json-schemas.ts adds it). */
export const ANSWER_FIELDS: Record<'wrapped' | 'toolCall', string[]> = {
  wrapped: ['result', 'error', 'unanswered'],
  toolCall: ['result', 'error'],
};

export const CassetteEntryFileSchema = z.union([
  WrappedEntryFileSchema,
  ToolCallEntryFileSchema,
  z.looseObject({
    $schema: SchemaRefSchema,
    $rewind: z.never().optional(),
    result: z.never().optional(),
    resultHash: z.never().optional(),
    error: z.never().optional(),
  }),
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
  /** the JSON-RPC error answered (then `result` is {}) */
  error?: RecordedError;
  /** the HTTP status, when not 200 */
  status?: number;
  protocolVersion?: string;
  framing?: Framing;
  timing?: Timing;
  stateless?: boolean;
  unanswered?: true;
  refusal?: RefusalKind;
  /** an `after_<key>` entry: it followed the n-th answer of that key in its session (absent: the first) */
  afterCall?: number;
  /** subscriptions/listen: for each streamed message, the last call answered before it */
  streamAfter?: (string | null)[];
  /** a list: the capabilities the recording client declared */
  clientCapabilities?: Record<string, unknown>;
  /** tools/call rounds after an input_required result */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/** The exchange fields of a parsed entry, only those present (an entry's object stays small). */
function exchangeFields(
  e: Pick<
    CassetteEntry,
    | 'error'
    | 'status'
    | 'protocolVersion'
    | 'framing'
    | 'timing'
    | 'stateless'
    | 'unanswered'
    | 'refusal'
    | 'clientCapabilities'
    | 'afterCall'
    | 'streamAfter'
  >,
): Partial<CassetteEntry> {
  const out: Partial<CassetteEntry> = {};
  if (e.unanswered !== undefined) out.unanswered = e.unanswered;
  if (e.refusal !== undefined) out.refusal = e.refusal;
  if (e.error !== undefined) out.error = e.error;
  if (e.status !== undefined) out.status = e.status;
  if (e.protocolVersion !== undefined) out.protocolVersion = e.protocolVersion;
  if (e.framing !== undefined) out.framing = e.framing;
  if (e.timing !== undefined) out.timing = e.timing;
  if (e.stateless !== undefined) out.stateless = e.stateless;
  if (e.clientCapabilities !== undefined) out.clientCapabilities = e.clientCapabilities;
  if (e.afterCall !== undefined) out.afterCall = e.afterCall;
  if (e.streamAfter !== undefined) out.streamAfter = e.streamAfter;
  return out;
}

function answerOf(e: {
  result?: Record<string, unknown>;
  error?: RecordedError;
  unanswered?: true;
}): Record<string, unknown> {
  if (e.result !== undefined) return e.result;
  if (e.error !== undefined || e.unanswered) return {};
  throw new Error('result: missing (an entry answers with a result or an error)');
}

/** Turns the parsed content of a distilled file into an entry; throws with a readable message when it is not one. */
export function parseDistilled(n: number, key: string, file: string, data: unknown): CassetteEntry {
  const base = { n, key, file };
  if (typeof data === 'object' && data !== null && '$rewind' in data) {
    const e = WrappedEntrySchema.parse(data);
    return {
      ...base,
      result: answerOf(e),
      method: e.method,
      params: e.params,
      stream: e.stream,
      recordedAt: e.recordedAt,
      ...exchangeFields(e),
    };
  }
  if (
    key.startsWith('tools_call_') &&
    typeof data === 'object' &&
    data !== null &&
    ('result' in data || ('error' in data && 'arguments' in data))
  ) {
    const e = ToolCallEntrySchema.parse(data);
    const round =
      e.inputResponses !== undefined || e.requestState !== undefined
        ? { inputResponses: e.inputResponses, requestState: e.requestState }
        : {};
    return {
      ...base,
      method: 'tools/call',
      result: answerOf(e),
      resultHash: e.resultHash,
      name: e.name,
      arguments: e.arguments,
      stream: e.stream,
      recordedAt: e.recordedAt,
      ...round,
      ...exchangeFields(e),
    };
  }
  const result = BareResultSchema.parse(data);
  if (typeof result.$schema !== 'string') return { ...base, result };
  const { $schema: _editorHint, ...rest } = result; // a `$schema` added by hand is not part of the replayed result
  return { ...base, result: rest };
}

/** What a distilled file says about its request, read without checking the rest of it (the cassette index's pass). */
export type EntryRequestFields = Pick<
  CassetteEntry,
  'key' | 'method' | 'params' | 'name' | 'arguments' | 'inputResponses' | 'requestState'
>;

const isTools = (key: string, d: Record<string, unknown>): boolean =>
  key.startsWith('tools_call_') && ('result' in d || ('error' in d && 'arguments' in d));

/** The request fields parseDistilled would give a file, without validating it (a full parse follows on first use). */
export function requestFieldsOf(key: string, data: unknown): EntryRequestFields {
  if (typeof data !== 'object' || data === null) return { key };
  const d = data as Record<string, unknown>;
  if ('$rewind' in d)
    return {
      key,
      method: typeof d.method === 'string' ? d.method : undefined,
      params: d.params as Record<string, unknown> | undefined,
    };
  if (!isTools(key, d)) return { key };
  const fields: EntryRequestFields = {
    key,
    method: 'tools/call',
    name: typeof d.name === 'string' ? d.name : undefined,
    arguments: d.arguments,
  };
  if (d.inputResponses !== undefined || d.requestState !== undefined) {
    fields.inputResponses = d.inputResponses as Record<string, unknown> | undefined;
    fields.requestState = d.requestState as string | undefined;
  }
  return fields;
}

/** What replay asks of every entry on a miss, known without a full parse: its error's code, the requestState its result issued. */
export interface EntryMarks {
  errorCode?: number;
  issuedState?: string;
}

/** The marks of a parsed entry, or of a file's JSON (as parseDistilled would read it); undefined when it has none. */
export function entryMarksOf(entry: Pick<CassetteEntry, 'error' | 'result'>): EntryMarks | undefined;
export function entryMarksOf(key: string, data: unknown): EntryMarks | undefined;
export function entryMarksOf(
  a: string | Pick<CassetteEntry, 'error' | 'result'>,
  data?: unknown,
): EntryMarks | undefined {
  let error: unknown;
  let result: unknown;
  if (typeof a !== 'string') ({ error, result } = a);
  else if (typeof data === 'object' && data !== null) {
    const d = data as Record<string, unknown>;
    if ('$rewind' in d || isTools(a, d)) ({ error, result } = d);
    else result = d;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  const state = (result as { requestState?: unknown } | undefined)?.requestState;
  if (typeof code !== 'number' && typeof state !== 'string') return undefined;
  return {
    ...(typeof code === 'number' ? { errorCode: code } : {}),
    ...(typeof state === 'string' ? { issuedState: state } : {}),
  };
}
