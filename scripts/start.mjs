#!/usr/bin/env node
// `npm start`: the desktop app (Electron, via electron-vite preview) where Electron's binary is installed or can be
// fetched; otherwise one line says why and the browser UI (`mcp-rewind ui`) is served instead, with its URL printed.
// Extra arguments go to the command that runs, e.g. `npm start -- --no-open`.
//
// `npm ci` never downloads Electron's binary (package.json's allowScripts denies Electron's install script, so the
// install cannot fail where GitHub is unreachable); the first `npm start` fetches it here with Electron's own
// installer (checksums verified, cached in ~/.cache/electron). ELECTRON_SKIP_BINARY_DOWNLOAD=1 skips the attempt.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const say = (line) => process.stdout.write(`mcp-rewind: ${line}\n`);

/** The Electron executable, if its binary is installed (`require('electron')` throws or names a missing file otherwise). */
function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Why the desktop window cannot open, after trying to fetch Electron's binary once; undefined when it can. */
function whyNoElectron() {
  if (electronBinary()) return undefined;
  let installer;
  try {
    installer = join(require.resolve('electron/package.json').replace(/package\.json$/, ''), 'install.js');
  } catch {
    return 'Electron is not installed (npm ci --omit=dev, or its install was skipped)';
  }
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD)
    return "Electron's binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD is set)";
  say("fetching Electron's binary (first start only, about 100 MB)…");
  const fetched = spawnSync(process.execPath, [installer], { cwd: root, encoding: 'utf8' });
  if (fetched.status === 0 && electronBinary()) return undefined;
  const reason =
    `${fetched.stderr ?? ''}`.split('\n').find((l) => l.trim()) ??
    fetched.error?.message ??
    `exit status ${fetched.status}`;
  return `Electron's binary could not be downloaded (${reason.trim()})`;
}

function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
  // Ctrl-C reaches the child through the terminal; this process waits for it to finish
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const reason = whyNoElectron();
if (!reason) {
  run(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'preview', ...args]);
} else {
  say(`${reason}, so the desktop window cannot open; serving the browser UI instead.`);
  // build first, as electron-vite preview does (the UI and the CLI run from out/ and dist/)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (build.status !== 0) {
    process.stderr.write(
      `${build.stdout ?? ''}${build.stderr ?? ''}mcp-rewind: npm run build failed${build.error ? `: ${build.error.message}` : ''}\n`,
    );
    process.exit(1);
  }
  run(process.execPath, [join(root, 'bin/mcp-rewind.js'), 'ui', ...args]);
}
