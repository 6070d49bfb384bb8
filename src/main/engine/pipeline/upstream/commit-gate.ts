import type { IncomingMessage, ServerResponse } from 'node:http';

/** a JSON body up to this size waits whole (a limit that cuts it can still be answered with a JSON-RPC error) */
export const JSON_HELD_WHOLE_BYTES = 1024 * 1024;

/**
 * The upstream's bytes on their way to the client while answers in them wait for a hook that commits them (the
 * recorder writing the entry durably) — byte for byte, as the plain relay sends them. SSE: chunks pass as they come,
 * except that from the chunk that completes a committed answer on, they wait until every commit so far resolved.
 * JSON: the body is one document whose answers are known at its end. Up to JSON_HELD_WHOLE_BYTES it waits whole
 * (the head too, so that a body cut before its end can still be answered with a JSON-RPC error, relay-failures.ts
 * brokenStream); beyond, it streams but for its latest chunk, so the client never has the whole document — the
 * answer — before the commit, and a large answer is not held in memory once more. A JSON body of newline-delimited
 * messages (a listen stream as chunked JSON lines) is no one document: once its first message was read (`lines`),
 * it streams as SSE does. Nothing is re-serialised, and no answer waits for the end of a body that is not its own.
 */
export class CommitGate {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private pending = 0;
  private ended = false;
  private readonly drained: Array<() => void> = [];
  /** the client is behind: the upstream is paused until it drains (one listener, however many chunks wait) */
  private draining = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly upRes: IncomingMessage,
    /** a JSON body: nothing of it may complete before the end (see above), unless it turns out to be lines */
    private json: boolean,
    /** writes the response head: at once for SSE, with the first byte sent for JSON */
    private readonly writeHead: () => void,
  ) {
    if (!json) writeHead();
  }

  /** An answer is being committed: what follows waits for it. Call before `write` of the chunk that completed it. */
  hold(commit: Promise<unknown>): void {
    this.pending++;
    void commit
      .catch(() => {}) // a failed commit is the hook's to report; the answer goes out all the same
      .then(() => {
        this.pending--;
        this.release();
      });
  }

  /** The JSON body is newline-delimited messages, one of them read: what waited goes (unless a commit holds it), and from here on it streams. */
  lines(): void {
    if (!this.json) return;
    this.json = false;
    this.release();
  }

  write(chunk: Buffer): void {
    if (!this.json && this.pending === 0 && this.queue.length === 0) return this.send(chunk);
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.json && this.pending === 0 && this.queuedBytes > JSON_HELD_WHOLE_BYTES) {
      // a large JSON body streams on, but for its latest chunk
      const last = this.queue.pop() as Buffer;
      for (const queued of this.queue.splice(0)) this.send(queued);
      this.queue.push(last);
      this.queuedBytes = last.length;
    }
  }

  /** The upstream's body ended: the rest goes out (and the response ends) once nothing is pending. */
  end(): void {
    this.ended = true;
    this.release();
  }

  /** Resolves once nothing waits any more (what was queued is sent), e.g. before an error is written after it. */
  settled(): Promise<void> {
    if (this.pending === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private release(): void {
    if (this.pending > 0 || (this.json && !this.ended)) return;
    if (!this.res.headersSent && !this.res.destroyed) this.writeHead();
    for (const chunk of this.queue.splice(0)) this.send(chunk);
    this.queuedBytes = 0;
    for (const resolve of this.drained.splice(0)) resolve();
    if (this.ended && !this.res.writableEnded) this.res.end();
  }

  private send(chunk: Buffer): void {
    if (this.res.destroyed) return;
    if (!this.res.headersSent) this.writeHead();
    if (!this.res.write(chunk) && !this.draining) {
      this.draining = true;
      this.upRes.pause();
      this.res.once('drain', () => {
        this.draining = false;
        this.upRes.resume();
      });
    }
  }
}
