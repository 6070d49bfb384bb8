import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../../../shared/jsonrpc.js';
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
  if (tooDeep(text, MAX_JSON_DEPTH)) throw new HttpError(400, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH}`, ErrorCode.ParseError);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Parse error: ${(error as Error).message}`, ErrorCode.ParseError);
  }
}
