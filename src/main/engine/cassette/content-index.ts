import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EntryMarks } from '../../../shared/cassette/entry.js';
import type { EntryRef } from './key-index.js';

/** One batch of entries for a worker: their file names and keys. */
export interface LooseBatch {
  id: number;
  files: string[];
  keys: string[];
}

/** A worker's answer: per entry its loose key (null: none, or unreadable now), the marks by index, the entries gone, warnings to log. */
export interface LooseResult {
  id: number;
  loose: Array<string | null>;
  marks: Array<[number, EntryMarks]>;
  gone: number[];
  warnings: string[];
}

const BATCH = 2048;
/** below this, starting threads costs more than it saves: the main thread reads the files itself */
export const WORKER_THRESHOLD = 8192;

/**
 * Worker threads run the built module next to this one (dist/). Run from the TypeScript sources (tests through tsx or
 * vitest, `BENCH_ENGINE=src`), there is no JavaScript to start a worker on: the store reads the files itself.
 */
export const workersAvailable = (): boolean => !import.meta.url.endsWith('.ts');

/**
 * Reads the loose keys of many entries of a folder on worker threads (one per core, at most 4), in batches;
 * `onBatch` gets each batch's entries and their result as it comes. Rejects when a worker cannot start or fails —
 * the caller then reads them itself. `signal`: stops early (the store was closed).
 */
export async function looseKeysInWorkers(dir: string, ignore: readonly string[], refs: EntryRef[], onBatch: (refs: EntryRef[], result: LooseResult) => void, signal: { stopped: boolean }): Promise<void> {
  const count = Math.max(1, Math.min(4, availableParallelism()));
  const batches: EntryRef[][] = [];
  for (let i = 0; i < refs.length; i += BATCH) batches.push(refs.slice(i, i + BATCH));
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.min(count, batches.length) }, () => {
        const worker = new Worker(new URL('./loose-worker.js', import.meta.url), { workerData: { dir, ignore: [...ignore] } });
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          const sendNext = (): void => {
            if (signal.stopped || next >= batches.length) return resolve();
            const id = next++;
            const batch = batches[id];
            worker.postMessage({ id, files: batch.map((r) => r.file), keys: batch.map((r) => r.key) } satisfies LooseBatch);
          };
          worker.on('message', (result: LooseResult) => {
            onBatch(batches[result.id], result);
            sendNext();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`index worker exited (code ${code})`)));
          sendNext();
        });
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
