/** A word for a POSIX shell: left bare when it is plainly safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
