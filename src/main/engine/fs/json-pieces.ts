import { createHash, hash, randomBytes } from 'node:crypto';
import { openAtomicStream, writeAtomic, type WriteOptions } from './atomic-write.js';

/**
 * strings longer than this are stringified in slices of this many characters: small enough that a slice and its
 * JSON (at most 6 characters each) stay in V8's young generation, whose garbage goes at the next scavenge
 */
const SLICE = 16 * 1024;

/**
 * `JSON.stringify(value, null, space)` in pieces: the text once every string longer than a slice is taken out (a
 * placeholder marks its place), and those strings escaped a slice at a time — so a 100 MB tool result never exists
 * twice over as one text (stringified, then encoded). The pieces joined are exactly JSON.stringify's text.
 */
export function* jsonPieces(value: unknown, space?: number): Generator<string> {
  if (!hasLongString(value, 0)) return yield JSON.stringify(value ?? null, null, space); // the usual entry: at once
  const long: string[] = [];
  const mark = `\u0000${randomBytes(9).toString('base64url')}:`;
  const text = JSON.stringify(
    value ?? null,
    (_key, v: unknown) => (typeof v === 'string' && v.length > SLICE ? `${mark}${long.push(v) - 1}` : v),
    space,
  );
  if (long.length === 0) return yield text;
  const placeholder = new RegExp(`"${JSON.stringify(mark).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');
  let at = 0;
  for (const m of text.matchAll(placeholder)) {
    yield text.slice(at, m.index);
    yield* stringPieces(long[Number(m[1])]);
    at = m.index + m[0].length;
  }
  yield text.slice(at);
}

/** Does a JSON value hold a string longer than a slice (or nest too deep to tell cheaply)? */
function hasLongString(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.length > SLICE;
  if (value === null || typeof value !== 'object') return false;
  if (depth > 64) return true;
  if (Array.isArray(value)) return value.some((item) => hasLongString(item, depth + 1));
  for (const key in value) if (hasLongString((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** A string as JSON, a slice at a time (never between the two halves of a surrogate pair, which would escape both). */
function* stringPieces(s: string): Generator<string> {
  yield '"';
  for (let i = 0; i < s.length;) {
    let end = Math.min(s.length, i + SLICE);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(s.slice(i, end)).slice(1, -1);
    i = end;
  }
  yield '"';
}

/** sha256 of `JSON.stringify(value)`, hex, fed piece by piece. */
export function jsonSha256(value: unknown): string {
  const pieces = jsonPieces(value);
  const first = pieces.next().value as string;
  const second = pieces.next();
  if (second.done) return hash('sha256', first, 'hex'); // one piece: the one-shot hash
  const sha = createHash('sha256')
    .update(first)
    .update(second.value as string);
  for (const piece of pieces) sha.update(piece);
  return sha.digest('hex');
}

/**
 * Writes `JSON.stringify(value, null, 2)` atomically (as writeAtomic): in one write when it is one piece, else
 * streamed piece by piece. Resolves with its length in characters.
 */
export async function writeJsonAtomic(
  folder: string,
  name: string,
  value: unknown,
  options: WriteOptions = {},
): Promise<number> {
  const pieces = jsonPieces(value, 2);
  const first = pieces.next().value as string;
  const second = pieces.next();
  if (second.done) {
    await writeAtomic(folder, name, first, options);
    return first.length;
  }
  const out = await openAtomicStream(folder, name, options);
  let chars = 0;
  try {
    for (const piece of [first, second.value as string]) {
      chars += piece.length;
      await out.write(piece);
    }
    for (const piece of pieces) {
      chars += piece.length;
      await out.write(piece);
    }
    await out.commit();
  } catch (error) {
    await out.abort();
    throw error;
  }
  return chars;
}
