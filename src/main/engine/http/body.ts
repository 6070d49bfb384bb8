import type { IncomingMessage } from 'node:http';

/** The SDK server transport's default limit; bigger bodies get 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Deeper JSON is refused before parsing: nothing in MCP nests this deep, and hashing it would blow the stack. */
export const MAX_JSON_DEPTH = 128;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly rpcCode?: number,
  ) {
    super(message);
  }
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new HttpError(413, `body larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `body larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Depth of brackets outside strings — a linear scan, so hostile nesting costs nothing to refuse. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash escapes the next char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Decodes a body as UTF-8 JSON; malformed input becomes an HttpError (400, -32700). */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new HttpError(400, 'Parse error: body is not valid UTF-8', -32700);
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new HttpError(400, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH}`, -32700);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Parse error: ${(error as Error).message}`, -32700);
  }
}
