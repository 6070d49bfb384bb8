import type { TrafficEvent } from '../../../shared/api.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';

/**
 * The timeline keeps every exchange small: a message whose JSON is bigger than BODY_LIMIT bytes (UTF-8, as on the wire) has its payload (params, result, or an
 * error's data) replaced by `{ "$truncated": { bytes, preview } }`, and a stream longer than STREAM_LIMIT keeps its
 * first messages only. The event says what was cut (`truncated`, with the full sizes) and what it weighs now
 * (`bytes`), so both the engine's ring and the renderer's store cap their memory by bytes; the engine keeps the full
 * event a while longer for `traffic.body` ("Load full body").
 */
export const BODY_LIMIT = 256 * 1024;
export const STREAM_LIMIT = 512 * 1024;
const PREVIEW = 2048; // characters of the cut message's JSON kept to show

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

type Truncated = NonNullable<TrafficEvent['truncated']>;

/** A message within the limit as it is; else with its payload replaced (`cut`: its full size). */
function slimMessage<M extends JsonRpcMessage>(message: M): { message: M; bytes: number; cut?: number } {
  const text = JSON.stringify(message) ?? '';
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= BODY_LIMIT) return { message, bytes };
  const marker = { $truncated: { bytes, preview: `${text.slice(0, PREVIEW)}…` } };
  const m = message as unknown as Record<string, unknown>;
  const slim =
    'result' in m
      ? { ...m, result: marker }
      : 'error' in m
        ? { ...m, error: { ...(m.error as object), data: marker } }
        : { ...m, params: marker };
  return { message: slim as M, bytes: jsonBytes(slim), cut: bytes };
}

/** The event as the timeline keeps it (the same object when nothing had to be cut), its size filled in. */
export function slimEvent(event: TrafficEvent): { event: TrafficEvent; truncated: boolean } {
  const truncated: Truncated = {};
  let bytes = 600; // the fixed fields
  const request = slimMessage(event.request);
  bytes += request.bytes;
  if (request.cut) truncated.request = request.cut;
  const response = event.response && slimMessage(event.response);
  if (response) bytes += response.bytes;
  if (response?.cut) truncated.response = response.cut;
  let stream = event.stream;
  let streamBytes = 0;
  let streamCut = false;
  for (let i = 0; i < (event.stream?.length ?? 0); i++) {
    const item = slimMessage(event.stream[i]);
    if (streamBytes + item.bytes > STREAM_LIMIT) {
      stream = stream.slice(0, i);
      streamCut = true;
      break;
    }
    streamBytes += item.bytes;
    if (item.cut) {
      if (stream === event.stream) stream = [...event.stream];
      stream[i] = item.message;
      streamCut = true;
    }
  }
  bytes += streamBytes;
  if (streamCut) truncated.stream = jsonBytes(event.stream);
  let original = event.original;
  if (original) {
    const req = original.request && slimMessage(original.request);
    const res = original.response && slimMessage(original.response);
    bytes += (req?.bytes ?? 0) + (res?.bytes ?? 0);
    if (req?.cut || res?.cut) {
      truncated.original = (req?.cut ?? req?.bytes ?? 0) + (res?.cut ?? res?.bytes ?? 0);
      original = { ...(req ? { request: req.message } : {}), ...(res ? { response: res.message } : {}) };
    }
  }
  if (Object.keys(truncated).length === 0) {
    return { event: { ...event, bytes }, truncated: false };
  }
  const timing =
    streamCut && event.timing?.stream
      ? { ...event.timing, stream: event.timing.stream.slice(0, stream.length) }
      : event.timing;
  return {
    event: {
      ...event,
      request: request.message,
      response: response?.message,
      stream,
      original,
      timing,
      bytes,
      truncated,
    },
    truncated: true,
  };
}
