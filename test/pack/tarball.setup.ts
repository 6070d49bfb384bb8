/**
 * Global setup of `npm run test:pack`: `npm pack` once (its prepack builds), for every pack test file; they read the
 * tarball's path and file list with inject('tarball') / inject('packedFiles'). Removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { run } from './processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    tarball: string;
    packedFiles: string[];
  }
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const work = await mkdtemp(join(tmpdir(), 'rewind-tarball-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO, timeoutMs: 240_000 });
  if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stderr}`);
  const report = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[\n'))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  project.provide('tarball', join(work, report[0].filename));
  project.provide('packedFiles', report[0].files.map((f) => f.path).sort());
  return () => rm(work, { recursive: true, force: true });
}
