import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * Reading a file of a cassette folder without ever leaving it. A cassette can come from an untrusted source (a pull
 * request, a downloaded fixture): an entry that is a symbolic link (to ~/.aws/credentials, say) would otherwise be
 * served as a replayed answer, copied into an export or shown in the Cassettes view. Names come from readdir or are
 * checked to be plain names, so only the last path component can be a link: O_NOFOLLOW refuses it atomically (no
 * check-then-open race), fstat refuses anything but a regular file (a FIFO would block, a device would never end).
 * O_NONBLOCK keeps a FIFO from blocking the open itself. The folder itself may be a link: the user named it.
 */

export class UnsafeEntryError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`refusing ${file}: ${reason} (cassette entries must be regular files inside the folder)`);
    this.name = 'UnsafeEntryError';
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Reads `dir/name` as UTF-8; throws UnsafeEntryError for a link or a non-regular file, the fs error otherwise. */
export async function readCassetteFile(dir: string, name: string): Promise<string> {
  if (basename(name) !== name || name === '..' || name === '.' || name.includes('\0')) throw new UnsafeEntryError(name, 'not a plain file name');
  if (NOFOLLOW === 0 && (await lstat(join(dir, name))).isSymbolicLink()) throw new UnsafeEntryError(name, 'it is a symbolic link'); // no O_NOFOLLOW (Windows)
  let handle;
  try {
    handle = await open(join(dir, name), constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafeEntryError(name, 'it is a symbolic link');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UnsafeEntryError(name, 'not a regular file');
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The message of a JSON.parse failure without the excerpt of the text that V8 puts in it (never echo file content). */
export function jsonErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  return error instanceof SyntaxError ? `not valid JSON${position ? ` (at character ${position[1]})` : ''}` : message.split('\n')[0];
}
