import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { AppController } from '../api/app-controller.js';
import { createApiHandlers } from '../api/handlers.js';
import { settingsFile } from '../api/settings-file.js';
import { rendererIndex, startWebShell, type WebShell } from '../web/web-shell.js';
import { claimDataDir, liveOwner, type DataOwner } from '../web/data-owner.js';
import { userDataDir } from '../web/user-data.js';
import { UsageError } from '../engine/errors.js';
import { guardStdStreams, stayUp, writeStderr, writeStdout } from './process-guard.js';
import { persistentToken } from './token-file.js';

/** `mcp-rewind ui`: the desktop UI in the default browser, served on loopback with an access token. */
export function buildUiProgram(): Command {
  return new Command('mcp-rewind ui')
    .description('serve the mcp-rewind UI to your browser (127.0.0.1, random access token in the printed URL)')
    .helpOption('-h, --help', 'show this help')
    .option('-p, --port <port>', 'port to listen on (0 = random)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'user data folder (settings, saved proxies) [MCP_REWIND_DATA_DIR]')
    .option('--no-open', 'print the URL only; do not open a browser')
    .option('--new-token', 'replace the access token kept in the data folder (open tabs must then use the new URL)', false);
}

export interface UiOptions {
  host: string;
  port: number;
  dataDir: string;
  open: boolean;
  newToken?: boolean;
}

export function toUiOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): UiOptions {
  const port = String(raw.port);
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be an integer between 0 and 65535, got "${port}"`);
  return {
    host: String(raw.host),
    port: Number(port),
    dataDir: (raw.dataDir as string | undefined) || userDataDir(env),
    open: raw.open !== false,
    ...(raw.newToken ? { newToken: true } : {}),
  };
}

/** out/renderer of this package (npm run build), from dist/main/cli or src/main/cli alike */
export const RENDERER_DIR = fileURLToPath(new URL('../../../out/renderer', import.meta.url));

export interface RunningUi {
  shell: WebShell;
  close(): Promise<void>;
}

/** Where the UI's access token is kept (0600), so a restarted `mcp-rewind ui` keeps it and open tabs reconnect. */
export const uiTokenFile = (dataDir: string): string => join(dataDir, 'ui-token');

/** Another process runs on the data folder (its workspace would be overwritten by a second one). */
export class DataFolderInUse extends Error {
  constructor(
    readonly owner: DataOwner,
    readonly dataDir: string,
  ) {
    super(
      owner.shell === 'electron'
        ? `the desktop app (pid ${owner.pid}) is using ${dataDir}: close it, or give this UI another folder with --data-dir`
        : `the UI of ${dataDir} is already running (pid ${owner.pid}) at ${owner.origin}`,
    );
    this.name = 'DataFolderInUse';
  }
}

export async function startUi(options: UiOptions & { version: string; rendererDir?: string; onLog?: (line: string) => void }): Promise<RunningUi> {
  const rendererDir = options.rendererDir ?? RENDERER_DIR;
  if (!existsSync(rendererIndex(rendererDir))) throw new Error(`the UI is not built (${rendererDir} is missing): run npm run build`);
  const owner = await liveOwner(options.dataDir);
  if (owner) throw new DataFolderInUse(owner, options.dataDir);
  if (options.newToken) rmSync(uiTokenFile(options.dataDir), { force: true });
  const { token } = persistentToken(uiTokenFile(options.dataDir));
  // the timeline's capacity is a setting (read at start; a bad settings file is reported and replaced by defaults)
  const { trafficCapacity } = settingsFile(options.dataDir).get().settings;
  const controller = new AppController({ dataDir: options.dataDir, trafficCapacity, version: options.version }); // its warnings go to stderr
  const handlers = createApiHandlers(controller, { shell: 'browser', version: options.version });
  const shell = await startWebShell({ host: options.host, port: options.port, rendererDir, handlers, token, onLog: options.onLog }).catch(
    async (error: Error) => {
      await controller.close();
      throw error;
    },
  );
  const claim = claimDataDir(options.dataDir, { shell: 'browser', origin: new URL(shell.url).origin });
  return {
    shell,
    close: async () => {
      await shell.close();
      await controller.close();
      claim.release();
    },
  };
}

/** Opens a URL in the default browser; failures (no desktop, no opener) are ignored: the URL is printed anyway. */
export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true, windowsVerbatimArguments: process.platform === 'win32' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
}

/** The whole `mcp-rewind ui` run (argv as process.argv, "ui" at index 2): prints the URL and serves until a signal. */
export async function uiCommand(argv: string[], version: string): Promise<void> {
  guardStdStreams();
  const fail = (status: number, message: string): never => {
    writeStderr(`mcp-rewind: ${message}`);
    process.exit(status);
  };
  const program = buildUiProgram()
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  let options: UiOptions;
  try {
    program.parse([argv[0], argv[1], ...argv.slice(3)]);
    options = toUiOptions(program.opts());
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') process.exit(0);
      return fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
    }
    if (error instanceof UsageError) return fail(2, error.message);
    throw error;
  }
  const log = writeStderr;
  const ui = await startUi({ ...options, version, onLog: log }).catch((error: Error) => {
    if (error instanceof DataFolderInUse && error.owner.origin) {
      // one UI per data folder: open the running one (same token: it is kept in the folder)
      const url = `${error.owner.origin}/?token=${persistentToken(uiTokenFile(options.dataDir)).token}`;
      writeStdout(`mcp-rewind: the UI of this data folder is already running (pid ${error.owner.pid})\n  open  ${url}\n`);
      if (options.open) openBrowser(url);
      process.exit(0);
    }
    return fail(1, `cannot start the UI: ${error.message}`);
  });
  writeStdout([`mcp-rewind ${version} — browser UI`, `  open  ${ui.shell.url}`, `  data  ${options.dataDir}`, '  (Ctrl-C to stop)'].join('\n') + '\n');
  if (options.open) openBrowser(ui.shell.url);
  stayUp(() => ui.close(), log);
}
