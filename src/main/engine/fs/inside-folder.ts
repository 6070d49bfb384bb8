import { lstat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * The one "inside the folder" check of every writer (atomic writes, renames, deletes of cassette files, exports,
 * saves): a name that came from a file, a HAR, the wire or the API may only ever name a file directly inside the folder
 * the user chose. Checked where the name becomes a path, right before the write: the name must be a plain file name,
 * the resolved path's folder must be the chosen folder (resolve + compare), and an existing symbolic link there is
 * refused rather than replaced or written through. The folder itself may be a link: the user named it.
 */
class UnsafePathError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    // JSON.stringify: a hostile name's control characters are shown escaped, never sent to a terminal raw
    super(
      `refusing to write ${JSON.stringify(file)}: ${reason} (files are only written directly inside the chosen folder)`,
    );
    this.name = 'UnsafePathError';
  }
}

/** A name with no path in it: not empty, not `.`/`..`, no separator, no NUL. */
export const isPlainName = (name: string): boolean =>
  name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);

/** The absolute path of `name` directly inside `folder`, or UnsafePathError naming it. */
export function pathInside(folder: string, name: string): string {
  if (!isPlainName(name)) throw new UnsafePathError(name, 'not a plain file name');
  const base = resolve(folder);
  const full = resolve(base, name);
  if (dirname(full) !== base) throw new UnsafePathError(name, `it resolves outside ${base}`);
  return full;
}

/** pathInside, and refuses a symbolic link (or a folder) already at that path: a write never goes through or over one. */
export async function writablePathInside(folder: string, name: string): Promise<string> {
  const full = pathInside(folder, name);
  const existing = await lstat(full).catch(() => undefined);
  if (existing?.isSymbolicLink()) throw new UnsafePathError(name, 'it is a symbolic link');
  if (existing && !existing.isFile()) throw new UnsafePathError(name, 'it is not a regular file');
  return full;
}
