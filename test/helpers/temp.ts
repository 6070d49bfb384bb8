import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temp folder, removed by removeTempDirs(). */
export async function tempDir(prefix = 'rewind-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A temp copy of a fixture folder, so a test never changes the committed fixture. */
export async function copyOf(folder: string): Promise<string> {
  const dir = await tempDir();
  await cp(folder, dir, { recursive: true });
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Distilled entry files (`<n> <key>.json`) of a cassette folder, sorted by sequence number. */
export async function distilledFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((n) => /^\d+ .+\.json$/.test(n) && !/\.(req|res|res-head)\.json$/.test(n))
    .sort((a, b) => parseInt(a) - parseInt(b));
}
