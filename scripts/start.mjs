#!/usr/bin/env node
// `npm start`: the desktop app (Electron, via electron-vite preview) where the Electron binary is installed; where
// it is missing (it cannot be downloaded on some machines), one line says so and the browser UI (`mcp-rewind ui`)
// is served instead, with its URL printed. Extra arguments go to the command that runs, e.g. `npm start -- --no-open`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

/** The Electron executable, if its binary was installed (`require('electron')` throws or names a missing file otherwise). */
function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
  // Ctrl-C reaches the child through the terminal; this process waits for it to finish
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (electronBinary()) {
  run(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'preview', ...args]);
} else {
  process.stdout.write('mcp-rewind: the Electron binary is not installed, so the desktop window cannot open; serving the browser UI instead.\n');
  // build first, as electron-vite preview does (the UI and the CLI run from out/ and dist/)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}mcp-rewind: npm run build failed${build.error ? `: ${build.error.message}` : ''}\n`);
    process.exit(1);
  }
  run(process.execPath, [join(root, 'bin/mcp-rewind.js'), 'ui', ...args]);
}
