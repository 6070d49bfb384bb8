import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { entryMarksOf, requestFieldsOf, type EntryMarks } from '../../../shared/cassette/entry.js';
import type { Log } from '../log.js';
import type { EntryRef, KeyIndex } from './key-index.js';
import { looseKeyOfEntry } from './keys.js';
import type { ReadEntry } from './persist/persister.js';

/** indexing runs in slices this long, so the port keeps answering while a large cassette is indexed */
export const SLICE_MS = 8;
export const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the content pass works on: the store's index and persister. */
export interface ContentPass {
  index: KeyIndex;
  persister: { read(file: string, log: Log): ReadEntry | 'gone' | undefined };
  /** the folder, when the cassette is one (worker threads read it) */
  folder?: string;
  /** the loose keys' --match-ignore paths */
  ignore: readonly string[];
  log: Log;
  /** an entry found gone or broken */
  drop(ref: EntryRef): void;
  stopping: { stopped: boolean };
}

/**
 * Reads every entry once to index its loose key and its marks: only its request (and error code, issued state) is
 * read out, a full parse waits for its first use. A large folder is read by worker threads, one per core, while the
 * main thread keeps serving; a small one, or where threads fail, here, in slices, hits being served in between.
 */
export async function indexContent(pass: ContentPass): Promise<void> {
  const { index, log, ignore } = pass;
  const refs = index.all().filter((ref) => ref.loose === undefined);
  let left = refs;
  if (pass.folder !== undefined && refs.length >= WORKER_THRESHOLD && workersAvailable()) {
    try {
      await looseKeysInWorkers(
        pass.folder,
        ignore,
        refs,
        (batch, result) => {
          for (const line of result.warnings) log(line, 'warn');
          for (const i of result.gone) pass.drop(batch[i]);
          for (let i = 0; i < batch.length; i++) {
            const loose = result.loose[i];
            if (loose !== null && batch[i].loose === undefined && index.holds(batch[i]))
              index.setLoose(batch[i], loose);
          }
          for (const [i, marks] of result.marks) if (index.holds(batch[i])) index.setMarks(batch[i], marks);
        },
        pass.stopping,
      );
      left = [];
    } catch (error) {
      log(`cassette: indexing on worker threads failed (${(error as Error).message}); indexing here`, 'warn');
      left = refs.filter((ref) => ref.loose === undefined);
    }
  }
  let slice = performance.now();
  for (let i = 0; i < left.length && !pass.stopping.stopped; i++) {
    if ((i & 127) === 127 && performance.now() - slice > SLICE_MS) {
      await yieldToRequests();
      slice = performance.now();
    }
    const ref = left[i];
    if (ref.loose !== undefined || !index.holds(ref)) continue; // read meanwhile, or replaced
    const read = pass.persister.read(ref.file, log);
    if (read === 'gone') pass.drop(ref);
    if (!read || read === 'gone') continue;
    index.setLoose(ref, looseKeyOfEntry(requestFieldsOf(ref.key, read.data), ignore));
    index.setMarks(ref, entryMarksOf(ref.key, read.data));
  }
}

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
const workersAvailable = (): boolean => !import.meta.url.endsWith('.ts');

/**
 * Reads the loose keys of many entries of a folder on worker threads (one per core, at most 4), in batches;
 * `onBatch` gets each batch's entries and their result as it comes. Rejects when a worker cannot start or fails —
 * the caller then reads them itself. `signal`: stops early (the store was closed).
 */
async function looseKeysInWorkers(
  dir: string,
  ignore: readonly string[],
  refs: EntryRef[],
  onBatch: (refs: EntryRef[], result: LooseResult) => void,
  signal: { stopped: boolean },
): Promise<void> {
  const count = Math.max(1, Math.min(4, availableParallelism()));
  const batches: EntryRef[][] = [];
  for (let i = 0; i < refs.length; i += BATCH) batches.push(refs.slice(i, i + BATCH));
  let next = 0;
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.min(count, batches.length) }, () => {
        const worker = new Worker(new URL('./loose-worker.js', import.meta.url), {
          workerData: { dir, ignore: [...ignore] },
        });
        workers.push(worker);
        return new Promise<void>((resolve, reject) => {
          const sendNext = (): void => {
            if (signal.stopped || next >= batches.length) return resolve();
            const id = next++;
            const batch = batches[id];
            worker.postMessage({
              id,
              files: batch.map((r) => r.file),
              keys: batch.map((r) => r.key),
            } satisfies LooseBatch);
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
