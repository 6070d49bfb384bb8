import { Command, Option } from 'commander';
import { REPEAT_POLICIES } from '../../shared/replay-repeat.js';
import { REPLAY_TIMING_HINT } from '../../shared/replay-timing.js';
import {
  DEFAULT_UPSTREAM_MAX_TIME_S,
  DEFAULT_UPSTREAM_TIMEOUT_S,
  UPSTREAM_MAX_TIME_HINT,
  UPSTREAM_TIMEOUT_HINT,
} from '../../shared/upstream-limits.js';
import { addOAuthOptions } from './oauth-options.js';
import { collect, resultHashIgnoreOption } from './repeatable.js';

/** The CLI's flags and help (commander); what they mean for a proxy is options.ts's, its subcommands commands.ts's. */

export function buildProgram(version: string): Command {
  const program = new Command('mcp-rewind')
    .description('Record, replay and inspect MCP traffic (Streamable HTTP proxy)')
    .version(version, '--version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .option('-p, --port <port>', 'port to listen on (0 = random)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '-u, --url <url>',
      'upstream MCP server URL (record, hybrid, proxy-only): Streamable HTTP or legacy HTTP+SSE, detected',
    )
    .option(
      '--upstream-command <command>',
      'instead of --url: run the upstream MCP server as a stdio child, e.g. "npx -y some-server --flag" (quotes and backslashes as in sh; no shell)',
    )
    .option(
      '--stdio',
      'speak MCP on stdin/stdout (for agents that launch a command); the banner and all logs go to stderr',
      false,
    )
    .option(
      '--attach',
      "with --stdio: show this server's traffic in the running app (found through the data folder) and take its rules, breakpoints and recording choice; a plain pass-through while no app runs",
      false,
    )
    .option(
      '--attach-name <name>',
      'with --attach: the name the app shows and keeps rules under (Intercept writes <client>:<server>)',
    )
    .option('--record <dir>', 'with --attach: record to this cassette folder (also while no app runs)')
    .option('--data-dir <dir>', "with --attach: the app's user data folder [MCP_REWIND_DATA_DIR]")
    .argument(
      '[upstream...]',
      'after --: the upstream stdio server, as its command and arguments (each word exactly as given)',
    )
    .option('-c, --cache <dir>', 'cassette folder', './cache')
    .option('-r, --replay', 'replay from the cache; with --url: hybrid', false)
    .option(
      '--record-missing',
      'hybrid: replay what the cassette holds, record what it misses (needs --url or --upstream-command; creates the cassette folder)',
      false,
    )
    .option(
      '--strict',
      'replay: a miss is an error naming the closest recorded key and what differs; at exit, a miss summary and exit status 1',
      false,
    )
    .option('--proxy-only', 'forward without reading or writing the cache', false)
    .option('--clean', 'wipe the cassette files of the cache folder at startup (record mode only)', false)
    .option(
      '--no-fsync',
      'record, hybrid: answer before the entry is flushed to disk (faster; an answered call can be lost if the proxy or the machine crashes)',
    )
    .option(
      '--upstream-timeout <seconds>',
      `upstream call: ${UPSTREAM_TIMEOUT_HINT}`,
      String(DEFAULT_UPSTREAM_TIMEOUT_S),
    )
    .option(
      '--upstream-max-time <seconds>',
      `upstream call: ${UPSTREAM_MAX_TIME_HINT}`,
      String(DEFAULT_UPSTREAM_MAX_TIME_S),
    )
    .option(
      '--session-idle <seconds>',
      'end client sessions that sent nothing this long, with their upstream session and stdio child (0: never; default 600, with --attach 0)',
    )
    .option('-v, --verbose', 'log each cache hit, miss, skip and record', false)
    .option('--result-hash-path <path>', 'dot path into the result used as hash input instead of the full result')
    .addOption(resultHashIgnoreOption())
    .addOption(
      new Option(
        '--match-ignore <path>',
        'replay: dot path into the request params ignored when matching (e.g. arguments.timestamp); repeatable',
      ).argParser(collect),
    )
    .addOption(
      new Option('--repeat <policy>', 'replay: once a repeated request used every recorded answer')
        .choices(REPEAT_POLICIES)
        .default('last'),
    )
    .option('--replay-timing <timing>', `replay: how long answers take: ${REPLAY_TIMING_HINT}`, 'none')
    .addOption(
      new Option(
        '--redact <regex>',
        'secret pattern written as [REDACTED] everywhere in the cassette (headers are redacted anyway); repeatable',
      ).argParser(collect),
    )
    .option(
      '--rules <file>',
      'JSON file of per-tool rules ({ instructions?, tools: [...], passthrough? }), applied on top of any mode',
    )
    .addOption(new Option('--allowed-host <name>', 'extra Host header value to accept; repeatable').argParser(collect))
    .addOption(
      new Option(
        '--allowed-origin <origin>',
        "a browser page's origin that may call the proxy (others are refused); repeatable",
      ).argParser(collect),
    );
  return addOAuthOptions(program, true);
}
