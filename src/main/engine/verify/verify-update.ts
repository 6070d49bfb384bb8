import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseDistilled, type CassetteEntry } from '../../../shared/cassette/entry.js';
import { distilledFor } from '../../../shared/cassette/distilled-write.js';
import { writeAtomic } from '../fs/atomic-write.js';
import { pathInside } from '../fs/inside-folder.js';
import { debugFileNames, stemOfEntry } from '../cassette/names.js';
import { folderPersister } from '../cassette/persist/folder.js';
import type { RecordedRequest } from '../cassette/recorded-request.js';
import { readCassetteFile } from '../cassette/safe-read.js';
import type { NewEntry } from '../cassette/store.js';
import type { LiveAnswer } from './verify-session.js';

/**
 * `verify --update`: the drifted entries recorded again, in place, from what the live server answered verify. Every
 * file that is replaced or removed is first copied into a backup folder beside the cassette
 * (`<cassette>.backup-<time>`), then each drifted key's first entry is rewritten (atomically, through the folder's
 * persister: same number, same key) and its further entries — other results of the same key, which the live server
 * no longer gives — are removed. The rewritten entry's `.res.json` / `.res-head.json` are stale and go (kept in the
 * backup); its `.req.json` stays: the request is the one recorded.
 */

export interface Rerecord {
  method: string;
  request: RecordedRequest;
  /** the drifted entries of one key (one revision), first the one that is rewritten */
  entries: readonly CassetteEntry[];
  live: LiveAnswer;
}

export interface UpdateReport {
  /** the backup folder (absolute) */
  backup: string;
  /** entry files rewritten with the live answer */
  rewritten: string[];
  /** entry files removed (their key now has one answer) */
  removed: string[];
}

/** `<cassette>.backup-2026-08-01T10-20-30-123Z` beside the cassette, made new (a second run in the same ms gets `-2`). */
async function makeBackupFolder(dir: string, now: Date): Promise<string> {
  const base = join(
    dirname(resolve(dir)),
    `${basename(resolve(dir))}.backup-${now.toISOString().replace(/[:.]/g, '-')}`,
  );
  for (let i = 1; ; i++) {
    const folder = i === 1 ? base : `${base}-${i}`;
    try {
      await mkdir(folder, { mode: 0o700 });
      return folder;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || i > 100) throw error;
    }
  }
}

/** Copies an entry's files (those present) into the backup folder. */
async function backUp(dir: string, backup: string, file: string): Promise<void> {
  for (const name of [file, ...debugFileNames(stemOfEntry(file))]) {
    let text: string;
    try {
      text = await readCassetteFile(dir, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && name !== file) continue; // debug files are optional
      throw error;
    }
    await writeAtomic(backup, name, text);
  }
}

/** The entry recording the live answer would give, the request's fields as recorded. */
function rerecorded(old: CassetteEntry, r: Rerecord, hashResult: (result: unknown) => string, now: Date): NewEntry {
  const { response, stream, status, framing, timing } = r.live;
  const error = 'error' in response ? response.error : undefined;
  const result = 'result' in response ? response.result : {};
  const isToolCall = r.method === 'tools/call';
  const round =
    old.inputResponses !== undefined || old.requestState !== undefined
      ? { inputResponses: old.inputResponses, requestState: old.requestState }
      : {};
  return {
    result,
    ...(error ? { error } : {}),
    resultHash: isToolCall && !error ? hashResult(result) : undefined,
    method: r.method,
    params: isToolCall ? undefined : (r.request.params ?? old.params),
    name: isToolCall ? String(r.request.params?.name ?? old.name ?? '') : undefined,
    arguments: isToolCall ? (r.request.params?.arguments ?? old.arguments ?? {}) : undefined,
    ...round,
    protocolVersion: old.protocolVersion,
    status,
    framing: framing ?? old.framing,
    timing,
    stateless: old.stateless,
    recordedAt: now.toISOString(),
    stream: stream.length ? stream : undefined,
  };
}

/** Re-records the drifted entries of a cassette folder (see above); undefined when nothing drifted. */
export async function rerecordDrifted(
  dir: string,
  drifted: readonly Rerecord[],
  hashResult: (result: unknown) => string,
  now = new Date(),
): Promise<UpdateReport | undefined> {
  if (drifted.length === 0) return undefined;
  const folder = folderPersister(dir);
  const backup = await makeBackupFolder(folder.location, now);
  for (const r of drifted) for (const e of r.entries) await backUp(folder.location, backup, e.file);
  const report: UpdateReport = { backup, rewritten: [], removed: [] };
  for (const r of drifted) {
    const [first, ...rest] = r.entries;
    const text = JSON.stringify(distilledFor(r.method, rerecorded(first, r, hashResult, now)), null, 2);
    await folder.writeText(first.file, text, parseDistilled(first.n, first.key, first.file, JSON.parse(text)));
    const [, res, head] = debugFileNames(stemOfEntry(first.file));
    await Promise.all([res, head].map((name) => rm(pathInside(folder.location, name), { force: true })));
    report.rewritten.push(first.file);
    for (const e of rest) {
      await folder.delete(e.file);
      report.removed.push(e.file);
    }
  }
  return report;
}
