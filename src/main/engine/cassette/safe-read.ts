import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Dirent } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ZodError } from 'zod';
import { isPlainName } from '../fs/inside-folder.js';

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
  if (!isPlainName(name)) throw new UnsafeEntryError(name, 'not a plain file name');
  if (NOFOLLOW === 0 && (await lstat(join(dir, name))).isSymbolicLink())
    throw new UnsafeEntryError(name, 'it is a symbolic link'); // no O_NOFOLLOW (Windows)
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

/** the buffer synchronous reads go through (entries are small; a bigger one gets a buffer of its own) */
let shared = Buffer.allocUnsafe(64 * 1024);
const SHARED_MAX = 1024 * 1024;

/**
 * The same, synchronously: what a lazily indexed cassette does on a replayed call's first use of an entry, and the
 * index's pass over every entry (a small file in the page cache reads several times faster this way than through
 * the thread pool, and the answer waits for it anyway). Reads the size fstat gave, into a reused buffer.
 */
export function readCassetteFileSync(dir: string, name: string): string {
  if (!isPlainName(name)) throw new UnsafeEntryError(name, 'not a plain file name');
  if (NOFOLLOW === 0 && lstatSync(join(dir, name)).isSymbolicLink())
    throw new UnsafeEntryError(name, 'it is a symbolic link');
  let fd: number;
  try {
    fd = openSync(`${dir}${sep}${name}`, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafeEntryError(name, 'it is a symbolic link');
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new UnsafeEntryError(name, 'not a regular file');
    // one byte more than fstat said: a file that grew meanwhile is read to its end all the same
    let buffer =
      info.size < shared.length
        ? shared
        : info.size < SHARED_MAX
          ? (shared = Buffer.allocUnsafe(SHARED_MAX))
          : Buffer.allocUnsafe(info.size + 1);
    let length = 0;
    for (;;) {
      const got = readSync(fd, buffer, length, buffer.length - length, length);
      if (got === 0) break;
      length += got;
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** What a folder listing already says about an entry (d_type): a link or a non-regular file is refused unread. */
export function unsafeListing(entry: Dirent): UnsafeEntryError | undefined {
  if (entry.isSymbolicLink()) return new UnsafeEntryError(entry.name, 'it is a symbolic link');
  if (!entry.isFile()) return new UnsafeEntryError(entry.name, 'not a regular file');
  return undefined;
}

/** The message of a JSON.parse failure without the excerpt of the text that V8 puts in it (never echo file content). */
export function jsonErrorMessage(error: unknown): string {
  // a schema's refusal names the field and why (its message is a JSON list of issues)
  if (error instanceof ZodError)
    return error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
      .join('; ');
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  return error instanceof SyntaxError
    ? `not valid JSON${position ? ` (at character ${position[1]})` : ''}`
    : message.split('\n')[0];
}
