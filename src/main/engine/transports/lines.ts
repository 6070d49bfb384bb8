/** The longest line a stdio peer may send (the rest of a longer one is refused): 64 MiB, as large answers go. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Newline-delimited text, chunk by chunk: each whole line (without its `\n` or `\r\n`) goes to `onLine`, unparsed.
 * A line longer than MAX_LINE_BYTES goes to `onTooLong` and is dropped.
 */
export class LineReader {
  private pieces: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: (bytes: number) => void = () => {},
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      let line = chunk.subarray(start, end);
      if (this.size > 0) {
        this.pieces.push(line);
        line = Buffer.concat(this.pieces);
        this.pieces = [];
        this.size = 0;
      }
      start = end + 1;
      const length = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
      if (length > MAX_LINE_BYTES) this.onTooLong(length);
      else this.onLine(line.toString('utf8', 0, length));
    }
    if (start >= chunk.length) return;
    this.size += chunk.length - start;
    if (this.size > MAX_LINE_BYTES) {
      this.onTooLong(this.size);
      this.pieces = [];
      this.size = 0;
      return;
    }
    this.pieces.push(chunk.subarray(start));
  }
}
