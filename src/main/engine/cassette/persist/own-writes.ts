import { lstat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/** how many recent own writes are remembered (an older one seen by the watcher is merely read again) */
const REMEMBERED = 10_000;

const signature = (s: Stats): string => `${s.ino}:${s.size}:${s.mtimeMs}`;

/**
 * The entry files this process wrote itself, as it left them (inode, size, modification time): the folder watcher
 * reports them too, and they are no hand edit to read back — for a 100 MB entry that read cost twice its size again.
 * A file changed since (someone edited it) no longer matches, and is read as any hand edit.
 */
export class OwnWrites {
  private readonly written = new Map<string, Promise<string | undefined>>();

  /** `write` writes `name` at `path`; its result is remembered as this process's own. */
  async track<T>(name: string, path: string, write: () => Promise<T>): Promise<T> {
    let settle: (sig: string | undefined) => void = () => {};
    this.written.delete(name);
    this.written.set(name, new Promise((resolve) => (settle = resolve)));
    if (this.written.size > REMEMBERED) this.written.delete(this.written.keys().next().value as string);
    try {
      const result = await write();
      settle(await lstat(path).then(signature, () => undefined));
      return result;
    } catch (error) {
      settle(undefined);
      throw error;
    }
  }

  /** Is the file at `path` still as this process wrote it? */
  async isOwn(name: string, path: string): Promise<boolean> {
    const wrote = await this.written.get(name);
    if (wrote === undefined) return false;
    return (await lstat(path).then(signature, () => undefined)) === wrote;
  }
}
