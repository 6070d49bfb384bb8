import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  CLIENT_IDS,
  parseTarget,
  type ClientId,
  type InterceptList,
  type InterceptResult,
  type InterceptSelection,
  type ServerTransport,
} from '../../shared/intercept.js';
import { launcherFor } from '../intercept/entry.js';
import { cliProxyHost } from '../intercept/proxy-host.js';
import { InterceptService } from '../intercept/service.js';
import { userDataDir } from '../web/user-data.js';
import { terminalSafe } from '../../shared/terminal-text.js';
import { collect } from './repeatable.js';

/**
 * `mcp-rewind intercept list [--json] | wrap <client>[:<server>] [--record <dir>] | unwrap <client>[:<server>] | unwrap
 * --all`: the clients' config files, read and changed as the app's Intercept view does (src/main/intercept).
 */

interface CommonOptions {
  dataDir?: string;
  project?: string[];
}

function common(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'user data folder (intercept.json: what mcp-rewind changed) [MCP_REWIND_DATA_DIR]')
    .addOption(
      new Option(
        '--project <dir>',
        'a project folder whose own config files are read too (default: the working folder); repeatable',
      ).argParser(collect),
    );
}

function service(options: CommonOptions & { launcher?: 'node' | 'npx' }, version: string): InterceptService {
  const dataDir = options.dataDir || userDataDir();
  return new InterceptService({
    dataDir,
    version,
    projects: [process.cwd(), ...(options.project ?? []).map((p) => resolve(p))],
    launcher: launcherFor(options.launcher ?? 'node', version),
    proxies: cliProxyHost(dataDir),
  });
}

function describe(transport: ServerTransport): string {
  return transport.kind === 'stdio'
    ? [transport.command, ...transport.args].join(' ')
    : `${transport.url}${transport.sse ? ' (SSE)' : ''}`;
}

export function formatList(list: InterceptList): string {
  const lines: string[] = [];
  for (const client of list.clients) {
    if (!client.found) {
      lines.push(`${client.label}: no config file found`);
      continue;
    }
    lines.push(client.label);
    for (const file of client.files) {
      lines.push(`  ${file.path}${file.error ? `  — ${file.error}` : ''}`);
      for (const p of file.problems ?? []) lines.push(`    (not read: ${p})`);
      for (const s of file.servers) {
        const state = s.state === 'direct' ? 'direct' : 'through mcp-rewind';
        lines.push(
          `    ${s.target}  [${s.transport.kind}, ${s.scope}${s.project ? ` ${s.project}` : ''}]  ${state}  ${describe(s.original ?? s.transport)}`,
        );
      }
    }
  }
  return lines.map((l) => terminalSafe(l)).join('\n') + '\n';
}

function formatResult(result: InterceptResult): string {
  const lines = result.written.map((w) =>
    result.action === 'wrap'
      ? `wrapped ${w.target} in ${w.path}${w.backup ? ` (backup: ${w.backup})` : ''}`
      : `unwrapped ${w.target} in ${w.path}${w.exact ? ' (restored byte for byte)' : ''}`,
  );
  for (const s of result.skipped) lines.push(`not changed: ${s}`);
  for (const h of result.hints) lines.push(`to apply: ${h}`);
  if (!lines.length) lines.push('nothing to change');
  return lines.map((l) => terminalSafe(l)).join('\n') + '\n';
}

/** `client` or `client:server` → a selection; a usage error names the clients. */
function selection(
  action: 'wrap' | 'unwrap',
  target: string,
  options: { file?: string; record?: string },
): InterceptSelection {
  const parsed =
    parseTarget(target) ??
    ((CLIENT_IDS as readonly string[]).includes(target)
      ? { client: target as ClientId, server: undefined }
      : undefined);
  if (!parsed)
    throw new CommanderError(
      2,
      'intercept.target',
      `"${target}" is not <client>[:<server>] (clients: ${CLIENT_IDS.join(', ')})`,
    );
  return {
    action,
    client: parsed.client,
    server: parsed.server,
    file: options.file && resolve(options.file),
    record: options.record && resolve(options.record),
  };
}

export function buildInterceptProgram(
  version: string,
  out: (text: string) => void,
  failed: (status: number) => void,
): Command {
  const program = new Command('mcp-rewind intercept')
    .description("route an MCP client's servers through mcp-rewind, and back")
    .helpOption('-h, --help', 'show this help');
  common(program.command('list').description("the MCP clients' config files and their servers (nothing is changed)"))
    .option('--json', 'as JSON', false)
    .action(async (options: CommonOptions & { json: boolean }) => {
      const list = await service(options, version).list();
      out(options.json ? `${JSON.stringify(list, null, 2)}\n` : formatList(list));
    });
  common(
    program
      .command('wrap <target>')
      .description('route <client>:<server> (or every server of <client>) through mcp-rewind'),
  )
    .option('--record <dir>', 'record its traffic to this cassette folder (also when no app runs)')
    .option('--file <path>', 'the config file, when the server is named in several')
    .addOption(
      new Option(
        '--launcher <how>',
        'how the client starts mcp-rewind: this installation (node + its path) or npx with this version',
      )
        .choices(['node', 'npx'])
        .default('node'),
    )
    .action(
      async (target: string, options: CommonOptions & { record?: string; file?: string; launcher: 'node' | 'npx' }) => {
        const svc = service(options, version);
        const result = await svc.apply(await svc.plan(selection('wrap', target, options)));
        out(formatResult(result));
        if (result.skipped.length && !result.written.length) failed(1);
      },
    );
  common(
    program
      .command('unwrap [target]')
      .description('put <client>:<server> (or every server of <client>) back as it was'),
  )
    .option('--all', 'every change mcp-rewind made (recorded in the data folder)', false)
    .option('--file <path>', 'the config file, when the server is named in several')
    .action(async (target: string | undefined, options: CommonOptions & { all: boolean; file?: string }) => {
      if (!target === !options.all)
        throw new CommanderError(2, 'intercept.target', 'give <client>[:<server>] or --all');
      const svc = service(options, version);
      const result = await svc.apply(await svc.plan(options.all ? 'all' : selection('unwrap', target!, options)));
      out(formatResult(result));
      if (result.skipped.length && !result.written.length) failed(1);
    });
  return program;
}

/** The whole `mcp-rewind intercept …` run (argv as process.argv, "intercept" at index 2). */
export async function interceptCommand(
  argv: string[],
  version: string,
  io: { out(text: string): void; err(line: string): void },
): Promise<number> {
  let status = 0;
  const program = buildInterceptProgram(version, io.out, (s) => (status = s));
  program.exitOverride().configureOutput({ writeOut: io.out, writeErr: () => {} });
  for (const sub of program.commands) sub.exitOverride().configureOutput({ writeOut: io.out, writeErr: () => {} });
  try {
    await program.parseAsync([argv[0], argv[1], ...argv.slice(3)]);
    return status;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
      )
        return 0;
      io.err(`mcp-rewind: ${error.message.replace(/^error: /, '')} (see mcp-rewind intercept --help)`);
      return 2;
    }
    io.err(`mcp-rewind: ${(error as Error).message}`);
    return 1;
  }
}
