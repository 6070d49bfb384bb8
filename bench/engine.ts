/** Which build of the engine the bench runs: BENCH_ENGINE=dist|src; by default dist/ when it has been built. */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../dist/main/engine/proxy.js', import.meta.url);
const SRC = new URL('../src/main/engine/proxy.ts', import.meta.url);

export const engineKind = (): 'dist' | 'src' => {
  const wanted = process.env.BENCH_ENGINE;
  if (wanted === 'src' || wanted === 'dist') return wanted;
  return existsSync(fileURLToPath(DIST)) ? 'dist' : 'src';
};

/** BENCH_ENGINE_URL: another checkout's built engine (bench/replay-baseline.ts runs the wave's starting code beside). */
export const engineProxyUrl = (): URL =>
  process.env.BENCH_ENGINE_URL ? new URL(process.env.BENCH_ENGINE_URL) : engineKind() === 'dist' ? DIST : SRC;

/** One line for the report: which engine, and for dist/ when it was built. */
export function engineLabel(): string {
  if (engineKind() === 'src') return 'engine: src/ via tsx';
  const built = statSync(fileURLToPath(DIST)).mtime.toISOString();
  return `engine: dist/ (tsc build of ${built}; \`npm run bench\` rebuilds it, BENCH_ENGINE=src runs src/ via tsx)`;
}
