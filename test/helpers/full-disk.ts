/**
 * A real full file system for the disk-full tests: a small tmpfs mounted for the test (Linux, as root: CI runs so),
 * filled up to ENOSPC and freed again on demand.
 *
 *   const disk = await smallTmpfs();
 *   if ('skip' in disk) return ctx.skip();   // printed: why it could not be mounted
 *   await disk.fill();  … ENOSPC for every write …  await disk.free();
 *   await disk.close(); // unmounts
 */
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './temp.js';

export interface SmallTmpfs {
  dir: string;
  /** writes a filler until the file system refuses (throws unless the refusal is ENOSPC) */
  fill(): Promise<void>;
  /** removes the filler */
  free(): Promise<void>;
  close(): Promise<void>;
}

export async function smallTmpfs(size = '256k'): Promise<SmallTmpfs | { skip: string }> {
  const dir = await tempDir('rewind-tmpfs-');
  try {
    if (process.platform !== 'linux') throw new Error(`not Linux (${process.platform})`);
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    const skip = `cannot mount a tmpfs (${((error as Error).message.split('\n')[0] ?? '').trim()})`;
    console.log(`disk-full test skipped: ${skip}`);
    return { skip };
  }
  const filler = path.join(dir, '.filler');
  return {
    dir,
    async fill() {
      const code = await writeFile(filler, Buffer.alloc(64 * 1024 * 1024, 1)).then(
        () => 'written',
        (error: NodeJS.ErrnoException) => error.code,
      );
      if (code !== 'ENOSPC') throw new Error(`filling ${dir}: expected ENOSPC, got ${code}`);
    },
    free: () => rm(filler, { force: true }),
    close: async () => void execFileSync('umount', ['-l', dir], { stdio: 'pipe' }),
  };
}
