/**
 * A client scenario recorded through a record-mode proxy in front of a live server (which stays up: verify and diff
 * need it, or a later release of it), and played back by a replay-mode proxy with no upstream at all; what a
 * cassette folder holds, file by file, to tell which files a command changed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startProxy } from '../../src/main/engine/proxy.js';
import { tempDir } from './temp.js';

export async function recordThrough<T>(
  upstreamUrl: string,
  scenario: (url: string) => Promise<T>,
  into?: string,
): Promise<{ cacheDir: string; seen: T }> {
  const cacheDir = into ?? (await tempDir());
  const recorder = await startProxy({ mode: 'record', upstreamUrl, cacheDir });
  try {
    const seen = await scenario(recorder.url);
    await recorder.flush();
    return { cacheDir, seen };
  } finally {
    await recorder.close();
  }
}

export async function replayThrough<T>(cacheDir: string, scenario: (url: string) => Promise<T>): Promise<T> {
  const replayer = await startProxy({ mode: 'replay', cacheDir });
  try {
    return await scenario(replayer.url);
  } finally {
    await replayer.close();
  }
}

/** Every file of a folder with its text. */
export async function folderFiles(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(dir)).sort();
  return new Map(
    await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)),
  );
}
