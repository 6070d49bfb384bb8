/**
 * Pretty-printed JSON written piece by piece: the items of an array nested `depth` levels deep, each as
 * `JSON.stringify(value, null, 2)` would print it there — so a streamed export is the same text as the document
 * stringified at once, which a large cassette could not be (V8's string limit, and the memory).
 */
export function jsonItem(first: boolean, depth: number, value: unknown): string {
  const indent = '  '.repeat(depth);
  // raw newlines in JSON text are structural only (a newline inside a string is escaped as \n)
  return `${first ? '\n' : ',\n'}${indent}${JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`)}`;
}

/** A sink that keeps the text in memory (small exports, previews): `text` once written. */
export class StringSink {
  private readonly pieces: string[] = [];

  async write(piece: string): Promise<void> {
    this.pieces.push(piece);
  }

  get text(): string {
    return this.pieces.join('');
  }
}

/** A sink that only counts the bytes (an export's preview of its size). */
export class CountingSink {
  bytes = 0;

  async write(piece: string): Promise<void> {
    this.bytes += Buffer.byteLength(piece);
  }
}
