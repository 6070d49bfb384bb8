import { lstat, rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CassetteEntrySummary } from '../../shared/api.js';
import type { CassetteEntry } from '../../shared/cassette/entry.js';
import { safeKey } from '../engine/cassette/safe-name.js';
import { entryPath, parseEntryText, readEntry, summarize, type HitCounts } from './cassette-files.js';

const DEBUG = ['.req.json', '.res.json', '.res-head.json'] as const;

/**
 * `cassettes.rename`: gives an entry a new key, keeping its sequence number (`<n> <old>.json` → `<n> <new>.json`, and
 * its debug siblings alike). The key is made file-name safe (safe-name.ts); a name already taken is refused.
 */
export async function renameEntry(
  dir: string,
  file: string,
  key: string,
  hits: HitCounts,
): Promise<{ entry: CassetteEntrySummary; parsed: CassetteEntry; oldKey: string }> {
  const from = entryPath(dir, file);
  if (/\.(req|res|res-head)\.json$/.test(file)) throw new Error(`file: "${file}" is a debug file, not a distilled entry`);
  const m = /^(\d+) (.+)\.json$/.exec(file) as RegExpExecArray;
  const wanted = key.trim();
  if (!wanted) throw new Error('key: give the new key');
  const safe = safeKey(wanted);
  const target = `${m[1]} ${safe}.json`;
  const { text } = await readEntry(dir, file); // exists, is a regular file
  const parsed = parseEntryText(target, text);
  if (target === file) return { entry: summarize(parsed, hits), parsed, oldKey: m[2] };
  const to = entryPath(dir, target);
  const taken = async (path: string): Promise<boolean> => (await lstat(path).catch(() => undefined)) !== undefined;
  const stemFrom = from.slice(0, -'.json'.length);
  const stemTo = to.slice(0, -'.json'.length);
  for (const path of [to, ...DEBUG.map((s) => stemTo + s)]) {
    if (await taken(path)) throw new Error(`key: "${safe}" is taken: ${resolve(path)} exists`);
  }
  // debug files first, the distilled file last (as the store writes), so a watcher never sees a half-renamed entry
  for (const suffix of DEBUG) if (await taken(stemFrom + suffix)) await rename(stemFrom + suffix, stemTo + suffix);
  await rename(from, to);
  return { entry: summarize(parsed, hits), parsed, oldKey: m[2] };
}
