/**
 * A worker thread of the cassette index's content pass (content-index.ts): reads the entries it is sent, in batches,
 * and answers each one's loose key (and the marks of the few that have some) — so that a large cassette's files are read on every core while the main thread
 * keeps serving. Each file is read exactly as the folder persister reads it (links refused, broken files reported).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { entryMarksOf, requestFieldsOf, type EntryMarks } from '../../../shared/cassette/entry.js';
import { looseKeyOfEntry } from './keys.js';
import { FolderPersister } from './persist/folder.js';
import type { LooseBatch, LooseResult } from './content-index.js';

const { dir, ignore } = workerData as { dir: string; ignore: string[] };
const folder = new FolderPersister(dir);

parentPort?.on('message', ({ id, files, keys }: LooseBatch) => {
  const warnings: string[] = [];
  const log = (line: string): void => void warnings.push(line);
  const loose: Array<string | null> = [];
  const marks: Array<[number, EntryMarks]> = [];
  const gone: number[] = [];
  for (let i = 0; i < files.length; i++) {
    const read = folder.read(files[i], log);
    if (read === 'gone') gone.push(i);
    if (!read || read === 'gone') {
      loose.push(null);
      continue;
    }
    loose.push(looseKeyOfEntry(requestFieldsOf(keys[i], read.data), ignore) ?? null);
    const marked = entryMarksOf(keys[i], read.data);
    if (marked) marks.push([i, marked]);
  }
  parentPort?.postMessage({ id, loose, marks, gone, warnings } satisfies LooseResult);
});
