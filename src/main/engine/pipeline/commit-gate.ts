import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The upstream's bytes on their way to the client while answers in them wait for a hook that commits them (the
 * recorder writing the entry durably) — byte for byte, as the plain relay sends them. SSE: chunks pass as they come,
 * except that from the chunk that completes a committed answer on, they wait until every commit so far resolved. JSON:
 * the body is one document whose answers are known at its end, so all of it waits. Nothing is re-serialised.
 */
export class CommitGate {
  private readonly queue: Buffer[] = [];
  private pending = 0;
  private ended = false;
  private readonly drained: Array<() => void> = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly upRes: IncomingMessage,
    /** hold everything until the end (a JSON body) */
    private readonly holdAll: boolean,
    /**
     * writes the response head: at once for SSE, with the first byte sent for a JSON body — so that a body cut
     * before its end can still be answered with a JSON-RPC error instead (relay.ts brokenStream)
     */
    private readonly writeHead: () => void,
  ) {
    if (!holdAll) writeHead();
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

  write(chunk: Buffer): void {
    if (this.pending > 0 || this.holdAll || this.queue.length > 0) this.queue.push(chunk);
    else this.send(chunk);
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
    if (this.pending > 0 || (this.holdAll && !this.ended)) return;
    if (this.holdAll && !this.res.headersSent && !this.res.destroyed) this.writeHead();
    for (const chunk of this.queue.splice(0)) this.send(chunk);
    for (const resolve of this.drained.splice(0)) resolve();
    if (this.ended && !this.res.writableEnded) this.res.end();
  }

  private send(chunk: Buffer): void {
    if (this.res.destroyed) return;
    if (!this.res.write(chunk)) {
      this.upRes.pause();
      this.res.once('drain', () => this.upRes.resume());
    }
  }
}
