import type { IncomingMessage } from 'node:http';
import {
  ErrorCode,
  invalidMessageReason,
  isRequest,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from '../../../shared/jsonrpc.js';
import { HttpError } from '../errors.js';
import { MAX_JSON_DEPTH, tooDeep } from '../../../shared/json-depth.js';

/** The SDK server transport's default limit; bigger bodies get 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** one decoder for every body: decode() without { stream } keeps no state between calls */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, `body larger than ${limit} bytes`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      if (tooBig) return; // keep draining, store nothing
      size += chunk.length;
      if (size > limit) {
        tooBig = true;
        chunks.length = 0;
        reject(new HttpError(413, `body larger than ${limit} bytes`));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Decodes a body as UTF-8 JSON; malformed input becomes an HttpError (400, ErrorCode.ParseError). */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new HttpError(400, 'Parse error: body is not valid UTF-8', ErrorCode.ParseError);
  }
  if (tooDeep(text, MAX_JSON_DEPTH))
    throw new HttpError(400, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH}`, ErrorCode.ParseError);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Parse error: ${(error as Error).message}`, ErrorCode.ParseError);
  }
}

/** A POST's body read as JSON-RPC, or why it is not (with the body, when it was read: a 400 may be judged upstream). */
export type JsonRpcBody =
  | { body: Buffer; parsed: JsonRpcMessage | JsonRpcMessage[]; messages: JsonRpcMessage[]; requests: JsonRpcRequest[] }
  | { body?: Buffer; error: HttpError };

/** Reads a POST's body and checks it is JSON-RPC: a JSON content type, valid JSON, a message or a non-empty batch of them; its requests apart. */
export async function readJsonRpc(req: IncomingMessage): Promise<JsonRpcBody> {
  let body: Buffer | undefined;
  try {
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      req.resume();
      throw new HttpError(
        415,
        'Unsupported Media Type: Content-Type must be application/json',
        ErrorCode.InvalidRequest,
      );
    }
    body = await readBody(req);
    const parsed = parseJsonBody(body);
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
    if (messages.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', ErrorCode.InvalidRequest);
    const requests: JsonRpcRequest[] = [];
    for (const m of messages) {
      const reason = invalidMessageReason(m);
      if (reason) throw new HttpError(400, `Invalid Request: ${reason}`, ErrorCode.InvalidRequest);
      if (isRequest(m)) requests.push(m);
    }
    return { body, parsed: parsed as JsonRpcMessage | JsonRpcMessage[], messages, requests };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    if (error.status === 413) req.resume();
    return { body, error };
  }
}
