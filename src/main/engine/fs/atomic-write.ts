import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';

/**
 * `.rewind-tmp-<pid>-<random>`: the one temp-file pattern. Dot-prefixed, so folder watchers and listings skip it;
 * the pid tells a crashed writer's leftovers (cleaned up when a cassette loads) from another live process's write.
 */
export const TEMP_PREFIX = '.rewind-tmp-';

/** Is a temp file's writer gone (its process no longer exists)? */
export function writerIsGone(tempName: string): boolean {
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

export interface WriteOptions {
  mode?: number;
  /**
   * true (default): when the promise resolves the file survives a power loss — its data is fsynced before the
   * rename, and the folder is fsynced after it (so the new name is on disk too). false: atomic only (a reader or a
   * crash of this process sees the old file or the new one), which is what `--no-fsync` records with.
   */
  durable?: boolean;
}

const tempPath = (path: string): string => join(dirname(path), `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);

/**
 * The one atomic write of the project (cassette entries, hand edits, exports, settings): a temp file in the same
 * folder, then rename — a reader sees the old file or the new one, never half of one — and, durable, the fsyncs
 * that make a resolved write survive a power loss. Hand-written rather than write-file-atomic because the temp name
 * must be the pattern above (the cassette loader cleans it up, watchers ignore it) and because the folder's fsync is
 * shared between concurrent writes (see syncFolder).
 */
export async function writeAtomic(path: string, content: string | Buffer, options: WriteOptions = {}): Promise<void> {
  const durable = options.durable !== false;
  const temp = tempPath(path);
  try {
    const handle = await open(temp, 'w', options.mode);
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

export function openAtomicStream(path: string, options: WriteOptions = {}): AtomicStream {
  const temp = tempPath(path);
  const out = createWriteStream(temp, { mode: options.mode, highWaterMark: 1 << 20 });
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
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}
