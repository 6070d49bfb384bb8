import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { writablePathInside } from './inside-folder.js';

/**
 * `.rewind-tmp-<pid>-<random>`: the one temp-file pattern. Dot-prefixed, so folder watchers and listings skip it;
 * the pid tells a crashed writer's leftovers (cleaned up when a cassette loads) from another live process's write.
 */
export const TEMP_PREFIX = '.rewind-tmp-';

/** Is a temp file's writer gone (its process no longer exists)? */
function writerIsGone(tempName: string): boolean {
  const pid = Number(basename(tempName).slice(TEMP_PREFIX.length).split('-')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A temp file this pattern names whose writer is gone: an orphan, removed. */
const isOrphanTemp = (name: string): boolean => name.startsWith(TEMP_PREFIX) && writerIsGone(name);

/** folders whose orphaned temp files this process removed already (once per folder: the first write there) */
const swept = new Set<string>();

/** Removes the orphaned temp files of a folder (a crashed writer's), once per folder and process; `listed`: the caller read the folder already. */
export async function sweepOrphanTemps(folder: string, listed?: readonly string[]): Promise<void> {
  if (swept.has(folder)) return;
  swept.add(folder);
  const names = listed ?? (await readdir(folder).catch(() => [] as string[]));
  for (const name of names) if (isOrphanTemp(name)) await rm(join(folder, name), { force: true }).catch(() => {});
}

export interface WriteOptions {
  mode?: number;
  /**
   * true (default): when the promise resolves the file survives a power loss — its data is fsynced before the
   * rename, and the folder is fsynced after it (so the new name is on disk too). false: atomic only (a reader or a
   * crash of this process sees the old file or the new one), which is what `--no-fsync` records with.
   */
  durable?: boolean;
}

const tempPath = (path: string): string =>
  join(dirname(path), `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);

/**
 * Where a write goes: `name` directly inside `folder` (inside-folder.ts: a plain name, no symbolic link there), its
 * temp file beside it, the folder's orphaned temp files removed first. Every writer names the folder it means, so a
 * name that came from a file or the wire can never climb out of it.
 */
async function target(folder: string, name: string): Promise<{ path: string; temp: string }> {
  const path = await writablePathInside(folder, name);
  await sweepOrphanTemps(dirname(path));
  return { path, temp: tempPath(path) };
}

/**
 * The one atomic write of the project (cassette entries, hand edits, exports, settings): `name` inside `folder`
 * (checked: see target), through a temp file in the same folder, then rename — a reader sees the old file or the new
 * one, never half of one — and, durable, the fsyncs that make a resolved write survive a power loss. Hand-written
 * rather than write-file-atomic because the temp name must be the pattern above (the cassette loader cleans it up,
 * watchers ignore it) and because the folder's fsync is shared between concurrent writes (see syncFolder). Answers
 * the path written.
 */
export async function writeAtomic(
  folder: string,
  name: string,
  content: string | Buffer,
  options: WriteOptions = {},
): Promise<string> {
  const durable = options.durable !== false;
  const { path, temp } = await target(folder, name);
  try {
    const handle = await open(temp, 'wx', options.mode); // never an existing file, nor a link planted at the temp name
    try {
      await handle.writeFile(content);
      if (durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  if (durable) await syncFolder(dirname(path));
  return path;
}

/**
 * A file written from a stream of pieces (exports of any size): `write` each piece (it waits while the disk is
 * behind, so memory stays bounded), then `commit` renames it into place (durably, as writeAtomic), or `abort`.
 */
export interface AtomicStream {
  write(piece: string): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
  /** bytes written so far */
  readonly bytes: number;
}

export async function openAtomicStream(
  folder: string,
  name: string,
  options: WriteOptions = {},
): Promise<AtomicStream> {
  const { path, temp } = await target(folder, name);
  const out = createWriteStream(temp, { flags: 'wx', mode: options.mode, highWaterMark: 1 << 20 });
  let failure: Error | undefined;
  out.on('error', (error) => (failure ??= error));
  let bytes = 0;
  const ended = async (): Promise<void> => {
    out.end();
    await finished(out);
  };
  return {
    get bytes() {
      return bytes;
    },
    async write(piece) {
      if (failure) throw failure;
      bytes += Buffer.byteLength(piece);
      if (!out.write(piece))
        await new Promise<void>((resolve, reject) => {
          const settle = (error?: Error): void => {
            out.off('drain', settle);
            out.off('error', settle);
            if (error) reject(error);
            else resolve();
          };
          out.once('drain', settle).once('error', settle);
        });
    },
    async commit() {
      try {
        if (failure) throw failure;
        await ended();
        if (options.durable !== false) {
          const handle = await open(temp, 'r+');
          await handle.datasync().finally(() => handle.close());
        }
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {});
        throw error;
      }
      if (options.durable !== false) await syncFolder(dirname(path));
    },
    async abort() {
      out.destroy();
      await rm(temp, { force: true }).catch(() => {});
    },
  };
}

/** Per folder: the fsync running now, and whether a later one is wanted (writes renamed while it ran). */
const folderSyncs = new Map<string, { running: Promise<void>; next?: Promise<void> }>();

/**
 * fsyncs a folder so that the names renamed into it are on disk. Group commit: concurrent writers share one fsync —
 * a caller whose rename happened before the running fsync began could rely on it, but the caller cannot know that,
 * so it waits for the next one, which every caller arriving meanwhile shares. Filesystems and systems that cannot
 * fsync a folder (Windows, some network filesystems) are skipped: there, the rename is as durable as it gets.
 */
export function syncFolder(dir: string): Promise<void> {
  const state = folderSyncs.get(dir);
  if (!state) {
    const running = fsyncFolder(dir).finally(() => advance(dir));
    folderSyncs.set(dir, { running });
    return running;
  }
  state.next ??= state.running.catch(() => {}).then(() => fsyncFolder(dir));
  return state.next;
}

function advance(dir: string): void {
  const state = folderSyncs.get(dir);
  if (!state) return;
  if (!state.next) {
    folderSyncs.delete(dir);
    return;
  }
  const next = state.next;
  folderSyncs.set(dir, { running: next.finally(() => advance(dir)) });
}

async function fsyncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EACCES')
      throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}
