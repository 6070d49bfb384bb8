import { mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { writeAtomic } from '../../engine/fs/atomic-write.js';

/** Writes a file of the app's data folder atomically (the engine's one atomic write), owner-only (0600); the folder is made. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeAtomic(dirname(file), basename(file), text, { mode: 0o600 });
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}
