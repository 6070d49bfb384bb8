import { spawn } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { writeStderr } from './process-guard.js';

/**
 * `mcp-rewind app`: the desktop app. Electron is not a dependency of the package (it is ~100 MB and CI never needs
 * it), so it runs the Electron installed beside mcp-rewind (`npm install electron`) or on the PATH (`npm install -g
 * electron`), with this package as the app: Electron reads package.json's "main" (out/main/index.js).
 */
export function buildAppProgram(): Command {
  return new Command('mcp-rewind app')
    .description(
      'open the desktop app (needs Electron installed beside mcp-rewind or on the PATH; `mcp-rewind ui` needs none)',
    )
    .helpOption('-h, --help', 'show this help')
    .option('--data-dir <dir>', 'user data folder (settings, saved proxies) [MCP_REWIND_DATA_DIR]');
}

/** this package's root (dist/main/cli → three levels up; src/main/cli alike) */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const UI_INSTEAD = '`mcp-rewind ui` serves the same UI to your browser';

export type ElectronLookup = { binary: string } | { problem: string };

/** An executable named `name` on the PATH (Windows: with the PATHEXT extensions). */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const file = join(dir, name + ext.toLowerCase());
      if (statSync(file, { throwIfNoEntry: false })?.isFile()) return file;
    }
  }
  return undefined;
}

/**
 * Electron as Node resolves it from this package (a project's node_modules/electron), else `electron` on the PATH.
 * `require('electron')` from Node returns the binary's path, or throws when the binary was never downloaded.
 */
export function findElectron(root: string = PACKAGE_ROOT, env: NodeJS.ProcessEnv = process.env): ElectronLookup {
  let installer: string | undefined;
  /** the binary of the electron package that `from` resolves, noting its installer when the binary is missing */
  const fromPackage = (from: string): string | undefined => {
    const require = createRequire(from);
    try {
      installer = join(require.resolve('electron/package.json'), '..', 'install.js');
      const binary: unknown = require('electron');
      return typeof binary === 'string' && existsSync(binary) ? binary : undefined;
    } catch {
      return undefined; // not installed, or installed without its binary (its index.js throws)
    }
  };
  const local = fromPackage(join(root, 'package.json'));
  if (local) return { binary: local };
  const global = onPath('electron', env);
  if (global) {
    // npm's `electron` command is the package's cli.js: usable only if that package has its binary
    const real = realpathSync(global);
    if (!real.endsWith(`${sep}electron${sep}cli.js`)) return { binary: global };
    const binary = fromPackage(join(dirname(real), '..', 'package.json'));
    if (binary) return { binary };
  }
  if (installer) {
    return {
      problem: `Electron is installed but its binary is missing (its download failed or was skipped): run \`node ${installer}\` where GitHub is reachable; ${UI_INSTEAD}`,
    };
  }
  return {
    problem: `the desktop app needs Electron, which is not installed here: run \`npm install electron\` beside mcp-rewind (or \`npx -p electron -p mcp-rewind mcp-rewind app\`); ${UI_INSTEAD}`,
  };
}

/** The whole `mcp-rewind app` run (argv as process.argv, "app" at index 2): Electron's exit status becomes ours. */
export function appCommand(argv: string[]): void {
  const fail = (status: number, message: string): never => {
    writeStderr(`mcp-rewind: ${message}`);
    process.exit(status);
  };
  const program = buildAppProgram()
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  try {
    program.parse([argv[0], argv[1], ...argv.slice(3)]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed') process.exit(0);
    fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
  }
  if (!existsSync(join(PACKAGE_ROOT, 'out/main/index.js')))
    fail(1, 'the desktop app is not built (out/main is missing): run `npm run build`');
  const electron = findElectron();
  if ('problem' in electron) return fail(1, electron.problem);
  const dataDir = program.opts<{ dataDir?: string }>().dataDir;
  const env: NodeJS.ProcessEnv = { ...process.env, ...(dataDir ? { MCP_REWIND_DATA_DIR: dataDir } : {}) };
  delete env.ELECTRON_RUN_AS_NODE; // would start Electron as plain Node
  // a global install on Windows is an npm .cmd shim, which only a shell can run
  const shim = process.platform === 'win32' && /\.(cmd|bat)$/i.test(electron.binary);
  const quote = (s: string): string => (shim ? `"${s}"` : s);
  const child = spawn(quote(electron.binary), [quote(PACKAGE_ROOT)], { stdio: 'inherit', env, shell: shim });
  child.on('error', (error) => fail(1, `cannot start Electron (${electron.binary}): ${error.message}`));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
