import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { AppController } from '../api/app-controller.js';
import { createApiHandlers } from '../api/handlers.js';
import { settingsFile } from '../api/files/settings-file.js';
import { rendererIndex, startWebShell, type WebShell } from '../web/web-shell.js';
import { CODE_TTL_MS, handoffFile } from '../web/sign-in.js';
import { BROWSER_ORIGIN_HINT, isBrowserOrigin } from '../../shared/origins.js';
import { claimDataDir, liveOwner, type DataOwner } from '../web/data-owner.js';
import { userDataDir } from '../web/user-data.js';
import { UsageError } from '../engine/errors.js';
import { guardStdStreams, stayUp, writeStderr, writeStdout } from './process-guard.js';
import { persistentToken } from './token-file.js';
import { uiTokenFile } from '../web/ui-link.js';
import { codeFromRunningUi, openHandoff } from './ui-open.js';
import { collect } from './repeatable.js';

/** `mcp-rewind ui`: the desktop UI in the default browser, served on loopback with an access token. */
export function buildUiProgram(): Command {
  return new Command('mcp-rewind ui')
    .description('serve the mcp-rewind UI to your browser (127.0.0.1; a one-time sign-in link is printed and opened)')
    .helpOption('-h, --help', 'show this help')
    .option('-p, --port <port>', 'port to listen on (0 = random)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'user data folder (settings, saved proxies) [MCP_REWIND_DATA_DIR]')
    .option('--no-open', 'print the URL only; do not open a browser')
    .option(
      '--new-token',
      'replace the access token kept in the data folder (open tabs must then sign in again)',
      false,
    )
    .addOption(
      new Option(
        '--allowed-origin <origin>',
        "a browser page's origin that may call every proxy of this UI (a browser-based MCP client); repeatable",
      ).argParser(collect),
    );
}

export interface UiOptions {
  host: string;
  port: number;
  dataDir: string;
  open: boolean;
  newToken?: boolean;
  /** browser origins every proxy of the UI admits (besides the UI's own and each proxy's own setting) */
  allowedOrigins?: string[];
}

export function toUiOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): UiOptions {
  const port = String(raw.port);
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    throw new UsageError(`--port must be an integer between 0 and 65535, got "${port}"`);
  const origins = (raw.allowedOrigin as string[] | undefined) ?? [];
  for (const origin of origins)
    if (!isBrowserOrigin(origin))
      throw new UsageError(`--allowed-origin must be ${BROWSER_ORIGIN_HINT}, got "${origin}"`);
  return {
    host: String(raw.host),
    port: Number(port),
    dataDir: (raw.dataDir as string | undefined) || userDataDir(env),
    open: raw.open !== false,
    ...(raw.newToken ? { newToken: true } : {}),
    ...(origins.length ? { allowedOrigins: origins } : {}),
  };
}

/** out/renderer of this package (npm run build), from dist/main/cli or src/main/cli alike */
export const RENDERER_DIR = fileURLToPath(new URL('../../../out/renderer', import.meta.url));

export interface RunningUi {
  shell: WebShell;
  close(): Promise<void>;
}

// the UI's access token is kept there (0600), so a restarted `mcp-rewind ui` keeps it and open tabs reconnect
export { uiTokenFile } from '../web/ui-link.js';

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

export async function startUi(
  options: UiOptions & { version: string; rendererDir?: string; onLog?: (line: string) => void; codeTtlMs?: number },
): Promise<RunningUi> {
  const rendererDir = options.rendererDir ?? RENDERER_DIR;
  if (!existsSync(rendererIndex(rendererDir)))
    throw new Error(`the UI is not built (${rendererDir} is missing): run npm run build`);
  const owner = await liveOwner(options.dataDir);
  if (owner) throw new DataFolderInUse(owner, options.dataDir);
  if (options.newToken) rmSync(uiTokenFile(options.dataDir), { force: true });
  const { token } = persistentToken(uiTokenFile(options.dataDir));
  // the timeline's capacity is a setting (read at start; a bad settings file is reported and replaced by defaults)
  const { trafficCapacity } = settingsFile(options.dataDir).get().settings;
  // the proxies admit the UI's own page (known once it listens) and the origins given with --allowed-origin
  const browserOrigins = [...(options.allowedOrigins ?? [])];
  const controller = new AppController({
    dataDir: options.dataDir,
    trafficCapacity,
    version: options.version,
    browserOrigins: () => browserOrigins,
  }); // its warnings go to stderr
  const handlers = createApiHandlers(controller, { shell: 'browser', version: options.version });
  const { host, port, onLog, codeTtlMs } = options;
  const shell = await startWebShell({ host, port, rendererDir, handlers, token, onLog, codeTtlMs }).catch(
    async (error: Error) => {
      await controller.close();
      throw error;
    },
  );
  browserOrigins.push(shell.origin);
  const claim = claimDataDir(options.dataDir, { shell: 'browser', origin: shell.origin });
  return {
    shell,
    close: async () => {
      await shell.close();
      await controller.close();
      claim.release();
      rmSync(handoffFile(options.dataDir), { force: true });
    },
  };
}

const LINK_NOTE = `        (a one-time link: it works once, within ${CODE_TTL_MS / 1000} s; run mcp-rewind ui again for a new one)`;

/** Prints the sign-in link and, unless --no-open, opens the hand-off file (a code of its own) in the browser. */
async function letIn(
  lines: string[],
  options: UiOptions,
  origin: string,
  newCode: () => Promise<string>,
): Promise<void> {
  const link = `${origin}/?code=${await newCode()}`;
  const opened = options.open
    ? await openHandoff(options.dataDir, origin, await newCode()).catch(() => undefined)
    : undefined;
  writeStdout([...lines, `  open  ${link}`, LINK_NOTE, ...(opened ? [`  browser  ${opened}`] : [])].join('\n') + '\n');
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
  const ui = await startUi({ ...options, version, onLog: log }).catch(async (error: Error) => {
    if (error instanceof DataFolderInUse && error.owner.origin) {
      // one UI per data folder: let the user into the running one (it issues the link; the token stays in the folder)
      const { origin, pid } = error.owner;
      const token = persistentToken(uiTokenFile(options.dataDir)).token;
      await letIn([`mcp-rewind: the UI of this data folder is already running (pid ${pid})`], options, origin, () =>
        codeFromRunningUi(origin, token),
      ).catch((cause: Error) => fail(1, `cannot sign in to the running UI: ${cause.message}`));
      process.exit(0);
    }
    return fail(1, `cannot start the UI: ${error.message}`);
  });
  await letIn([`mcp-rewind ${version} — browser UI`], options, ui.shell.origin, async () => ui.shell.issueCode());
  writeStdout([`  data  ${options.dataDir}`, '  (Ctrl-C to stop)'].join('\n') + '\n');
  stayUp(() => ui.close(), log);
}
