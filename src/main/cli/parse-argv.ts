import { CommanderError, type Command } from 'commander';
import { UsageError } from '../engine/errors.js';
import { writeStderr } from './process-guard.js';

/** Ends the run with one line on stderr. */
export function fail(status: number, message: string): never {
  writeStderr(`mcp-rewind: ${message}`);
  process.exit(status);
}

/**
 * Parses argv with a commander program and converts its options; usage errors (commander's, or a UsageError that
 * convert throws) become one line and exit status 2; --help and --version exit 0. convert may load what it needs.
 */
export async function parse<T>(
  program: Command,
  argv: string[],
  convert: (opts: Record<string, unknown>, args: string[]) => T | Promise<T>,
): Promise<T> {
  program.exitOverride().configureOutput({ writeErr: () => {} }); // errors are printed once, as one line
  try {
    program.parse(argv);
    return await convert(program.opts(), program.args);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
      fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
    }
    if (error instanceof UsageError) fail(2, error.message);
    throw error;
  }
}

/** A subcommand's own argv: as process.argv, without the command's name (index 2). */
export const commandArgv = (argv: string[]): string[] => [argv[0], argv[1], ...argv.slice(3)];
