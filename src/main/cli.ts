import { readFileSync, statSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { buildProgram, toProxyOptions, UsageError, type RawOptions } from './cli/options.js';
import { buildServeProgram, toServeOptions } from './cli/serve-command.js';
import { formatExchange } from './cli/format.js';
import { buildVerifyProgram, runVerify, toVerifyOptions } from './cli/verify-command.js';
import { buildExportProgram, runExport, toExportOptions } from './cli/export-command.js';
import { redactUrl } from './engine/cassette/redact.js';
import { startProxy } from './engine/proxy.js';
import { startServe } from './engine/serve.js';
import { probeUpstream } from './engine/upstream/http-upstream.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const serverInfo = { name: 'mcp-rewind', version: pkg.version };
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function fail(status: number, message: string): never {
  process.stderr.write(`mcp-rewind: ${message}\n`);
  process.exit(status);
}

/** Parses argv with a commander program; usage errors become one line and exit status 2. */
function parse<T>(program: Command, argv: string[], convert: (opts: Record<string, unknown>) => T): T {
  program.exitOverride().configureOutput({ writeErr: () => {} }); // errors are printed once, as one line
  try {
    program.parse(argv);
    return convert(program.opts());
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
      fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
    }
    if (error instanceof UsageError) fail(2, error.message);
    throw error;
  }
}

function stayUp(close: () => Promise<void>): void {
  const stop = (): void => void close().finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A proxy must outlive a bug in one exchange: report it and keep serving the others.
  process.on('uncaughtException', (error) => log(`internal error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => log(`internal error: ${String((reason as Error)?.stack ?? reason)}`));
}

async function proxyCommand(argv: string[]): Promise<void> {
  const options = parse(buildProgram(pkg.version), argv, (opts) => toProxyOptions(opts as unknown as RawOptions));
  if (options.mode !== 'replay' && options.mode !== 'proxy-only' && statSync(options.cacheDir ?? '', { throwIfNoEntry: false })?.isFile()) {
    fail(1, `cannot start: --cache ${options.cacheDir} is a single-file cassette, which is read-only: ${options.mode} mode needs a folder`);
  }
  if (options.upstreamUrl) {
    const reason = await probeUpstream(options.upstreamUrl);
    if (reason) fail(1, `upstream ${redactUrl(options.upstreamUrl)} did not answer an MCP initialize: ${reason}`);
  }
  const proxy = await startProxy({ ...options, serverInfo, onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined) }).catch((error: Error) =>
    fail(1, `cannot start: ${error.message}`),
  );
  if (options.verbose) proxy.events.on('exchange', (event) => log(formatExchange(event)));
  const lines = [`mcp-rewind ${pkg.version} — ${proxy.mode} mode`, `  MCP endpoint  ${proxy.url}`];
  if (options.upstreamUrl) lines.push(`  upstream      ${redactUrl(options.upstreamUrl)}`);
  if (proxy.store) lines.push(`  cassette      ${options.cacheDir} (${proxy.store.size} entries)`);
  if (options.rules) lines.push(`  rules         ${options.rules.overlay.tools.length} tool rule(s), passthrough ${options.rules.overlay.passthrough}`);
  process.stdout.write(lines.join('\n') + '\n');
  stayUp(() => proxy.close());
}

async function serveCommand(argv: string[]): Promise<void> {
  const options = parse(buildServeProgram(process.env), [argv[0], argv[1], ...argv.slice(3)], (opts) => toServeOptions(opts));
  const running = await startServe({
    ...options,
    serverInfo,
    onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined),
    onExchange: options.verbose ? (sessionId, event) => log(`[${sessionId}] ${formatExchange(event)}`) : undefined,
  }).catch((error: Error) => fail(1, `cannot start: ${error.message}`));
  process.stdout.write(
    [
      `mcp-rewind ${pkg.version} — serve`,
      `  REST API      ${running.url}/api/sessions${options.apiToken ? ' (API token required)' : ''}`,
      `  MCP endpoint  ${running.url}/mcp  (Authorization: Bearer <session_id>, or ${running.url}/s/<session_id>/mcp)`,
    ].join('\n') + '\n',
  );
  stayUp(() => running.close());
}

/** `mcp-rewind verify|export`: one run, exit status 0 (no drift), 1 (drift, unreachable server, I/O error), 2 (usage). */
async function verifyCommand(argv: string[]): Promise<void> {
  const options = parse(buildVerifyProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toVerifyOptions(opts));
  const status = await runVerify(options, (text) => void process.stdout.write(text)).catch((error: Error) => fail(1, error.name === 'UnreachableError' ? `upstream ${error.message}` : error.message));
  process.exit(status);
}

async function exportCommand(argv: string[]): Promise<void> {
  const options = parse(buildExportProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toExportOptions(opts));
  process.stdout.write(await runExport(options, pkg.version).catch((error: Error) => fail(1, error.message)));
}

const subcommands: Record<string, (argv: string[]) => Promise<void>> = { serve: serveCommand, verify: verifyCommand, export: exportCommand };
void (Object.hasOwn(subcommands, process.argv[2] ?? '') ? subcommands[process.argv[2]] : proxyCommand)(process.argv);
