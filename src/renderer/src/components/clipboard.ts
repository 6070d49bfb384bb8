/** Copies text; `done` gets `copied` (or the message given) or why not (no clipboard: an insecure page, a test). */
export function copyText(text: string, done: (message: string) => void, copied = 'copied'): void {
  navigator.clipboard
    .writeText(text)
    .then(() => done(copied))
    .catch(() => done('no clipboard here'));
}
