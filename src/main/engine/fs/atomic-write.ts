import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

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

/**
 * The one atomic write of the project (cassette entries, hand edits, exports, settings): a temp file in the same
 * folder, then rename — a reader sees the old file or the new one, never half of one. Hand-written rather than
 * write-file-atomic because the temp name must be the pattern above (the cassette loader cleans it up, watchers
 * ignore it). Issue 11's durability (fsync of file and folder) belongs here.
 */
export async function writeAtomic(path: string, content: string, options: { mode?: number } = {}): Promise<void> {
  const temp = join(dirname(path), `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temp, content, options.mode === undefined ? undefined : { mode: options.mode });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
