import { writeAtomic } from '../../fs/atomic-write.js';
import { debugFileNames } from '../names.js';
import type { PersistedExchange } from './persister.js';

type Debug = NonNullable<PersistedExchange['debug']>;

/** debug files written at once (more would compete with the entries' fsyncs for the thread pool and the journal) */
const CONCURRENCY = 2;
/** exchanges whose debug files may wait; beyond, the next entry waits for room (memory stays bounded) */
const BACKLOG = 256;

/**
 * The debug files of committed exchanges (`.req.json`, `.res.json`, `.res-head.json`), written after their entry, a
 * few at a time, atomically but not fsynced: replay does not need them, and a burst of recordings then costs its
 * entries' fsyncs little (written all at once, they made each fsync flush their data too: durable recording at 32
 * concurrent calls ran at a third of the speed).
 */
export class DebugWriter {
  private readonly queue: Array<{ dir: string; stem: string; debug: Debug }> = [];
  private running = 0;
  private failure?: Error;
  private readonly idle: Array<() => void> = [];
  private readonly room: Array<() => void> = [];

  add(dir: string, stem: string, debug: Debug): void {
    this.queue.push({ dir, stem, debug });
    this.pump();
  }

  /** Resolves when there is room in the backlog (at once, almost always). */
  hasRoom(): Promise<void> | undefined {
    if (this.queue.length < BACKLOG) return undefined;
    return new Promise((resolve) => this.room.push(resolve));
  }

  /** Resolves when every debug file queued so far is written; rejects with the first failure since the last flush. */
  async flush(): Promise<void> {
    if (this.queue.length > 0 || this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }

  private pump(): void {
    while (this.running < CONCURRENCY && this.queue.length > 0) {
      const job = this.queue.shift() as (typeof this.queue)[number];
      if (this.queue.length < BACKLOG) for (const resolve of this.room.splice(0)) resolve();
      this.running++;
      void this.write(job)
        .catch((error: Error) => (this.failure ??= error))
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.queue.length === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }

  private async write({ dir, stem, debug }: (typeof this.queue)[number]): Promise<void> {
    const [req, res, head] = debugFileNames(stem);
    await writeAtomic(dir, req, JSON.stringify(debug.request, null, 2), { durable: false });
    await writeAtomic(dir, res, debug.responseBody ?? '', { durable: false });
    await writeAtomic(dir, head, JSON.stringify(debug.responseHead, null, 2), { durable: false });
  }
}
