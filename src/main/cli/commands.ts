import type { Command } from 'commander';
import { UsageError } from '../engine/errors.js';
import { authRun, costRun, diffRun, exportRun, lintRun, serveRun, verifyRun } from './command-runs.js';
import { writeStderr, writeStdout } from './process-guard.js';

/** One `mcp-rewind <name> …`. */
export interface Subcommand {
  /** the word after `mcp-rewind` */
  name: string;
  /** its line in `mcp-rewind --help`, as docs/cli.md's command table says it too */
  summary: string;
  /** the whole run, argv as process.argv (the name at index 2): it loads its module now, and parses its own flags */
  run(argv: string[], version: string): Promise<void>;
}

/**
 * Every subcommand, in the order --help lists them: help, dispatch and docs/cli.md's "Commands" table all come from
 * here (test/cli-commands.test.ts compares them). A new command is one row, a run that imports its module, and a
 * row in docs/cli.md.
 */
export const SUBCOMMANDS: readonly Subcommand[] = [
  { name: 'serve', summary: 'sessions configured over a REST API (MiMCP-compatible), per-tool rules', run: serveRun },
  {
    name: 'verify',
    summary: "send a cassette's requests to the live server and report drift (JUnit with --junit, --update)",
    run: verifyRun,
  },
  {
    name: 'diff',
    summary: 'compare two cassettes: keys and tools added, removed, changed (exit 1 on breaking)',
    run: diffRun,
  },
  { name: 'export', summary: 'a cassette as one file (--out) or as HAR 1.2 (--har)', run: exportRun },
  {
    name: 'lint',
    summary: 'check every recorded exchange against the protocol and for security warnings (exit 1 on any error)',
    run: lintRun,
  },
  {
    name: 'cost',
    summary: "what a recording puts in a model's context, in tokens (--against: the difference to another)",
    run: costRun,
  },
  {
    name: 'auth',
    summary: 'status | login <url> | logout <url>: the sign-ins kept for OAuth-protected upstreams',
    run: authRun,
  },
  {
    name: 'ui',
    summary: "the app's UI in your browser (127.0.0.1, access token in the printed URL)",
    run: async (argv, version) => (await import('./ui-command.js')).uiCommand(argv, version),
  },
  {
    name: 'app',
    summary: 'the desktop app (needs Electron: npm install electron)',
    run: async (argv) => (await import('./app-command.js')).appCommand(argv),
  },
  {
    name: 'mcp',
    summary: 'the running `mcp-rewind ui` as an MCP server on stdio, for an agent (list_exchanges, get_exchange…)',
    run: async (argv, version) => (await import('./mcp-command.js')).mcpCommand(argv, version),
  },
  {
    name: 'redact',
    summary: 'redact --scan <cassette>: secrets left in a recording (exit 1 when one is found; --format sarif)',
    run: async (argv) => {
      const { redactCommand } = await import('./redact-command.js');
      process.exit(await redactCommand(argv, { out: writeStdout, err: writeStderr }));
    },
  },
  {
    name: 'intercept',
    summary: "route an MCP client's servers (Claude, Cursor, VS Code…) through mcp-rewind, and back",
    run: async (argv, version) => {
      const { interceptCommand } = await import('./intercept-command.js');
      process.exit(await interceptCommand(argv, version, { out: writeStdout, err: writeStderr }));
    },
  },
];

/**
 * Makes each row a commander command of the proxy's program: commander lists them under "Commands:" in --help and
 * picks the one named first. The row's own module parses the rest (its flags, its --help), so commander passes the
 * words on untouched; the proxy's options stay before any command (positional options).
 */
export function addSubcommands(program: Command, chosen: (command: Subcommand) => void): Command {
  for (const row of SUBCOMMANDS)
    program
      .command(row.name)
      .description(row.summary)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        // `mcp-rewind -v serve`: a proxy flag before a command would be dropped silently
        if (program.options.some((o) => program.getOptionValueSource(o.attributeName()) === 'cli'))
          throw new UsageError(`"${row.name}" is a command: give it first (mcp-rewind ${row.name} …)`);
        chosen(row);
      });
  return program
    .action(() => {}) // no command named: the proxy runs (a program with commands and no action would show its help)
    .enablePositionalOptions()
    .helpCommand(false)
    .addHelpText('after', '\nmcp-rewind <command> --help for the options of each.');
}
