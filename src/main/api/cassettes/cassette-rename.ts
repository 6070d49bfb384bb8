import { dirname } from 'node:path';
import type { CassetteEntrySummary } from '../../../shared/api.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { entryFileName, isEntryFile, parseCassetteName } from '../../engine/cassette/names.js';
import { folderPersister } from '../../engine/cassette/persist/folder.js';
import { fileKey } from '../../engine/cassette/safe-name.js';
import { entryPath, parseEntryText, readEntry, summarize, type HitCounts } from './cassette-files.js';

/**
 * `cassettes.rename`: gives an entry a new key, keeping its sequence number (`<n> <old>.json` → `<n> <new>.json`, and
 * its debug siblings alike), through the folder's persister. The key is made file-name safe (safe-name.ts fileKey); a name
 * already taken is refused.
 */
export async function renameEntry(
  dir: string,
  file: string,
  key: string,
  hits: HitCounts,
): Promise<{ entry: CassetteEntrySummary; parsed: CassetteEntry; oldKey: string }> {
  const from = entryPath(dir, file);
  if (!isEntryFile(file)) throw new Error(`file: "${file}" is a debug file, not a distilled entry`);
  const { n, key: oldKey } = parseCassetteName(file) as { n: number; key: string };
  const wanted = key.trim();
  if (!wanted) throw new Error('key: give the new key');
  const target = entryFileName(n, fileKey(wanted));
  const { text } = await readEntry(dir, file); // exists, is a regular file
  const parsed = parseEntryText(target, text);
  if (target === file) return { entry: summarize(parsed, hits), parsed, oldKey };
  entryPath(dir, target); // a plain name inside the folder
  await folderPersister(dirname(from)).rename(file, target, parsed);
  return { entry: summarize(parsed, hits), parsed, oldKey };
}
