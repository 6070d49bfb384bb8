import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { buildProgram, toProxyOptions, UsageError, type RawOptions } from './cli/options.js';
import { startProxy } from './engine/proxy.js';
import { formatExchange } from './cli/format.js';
import { redactUrl } from './engine/cassette/redact.js';
import { probeUpstream } from './engine/upstream/http-upstream.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function fail(status: number, message: string): never {
  process.stderr.write(`mcp-rewind: ${message}\n`);
  process.exit(status);
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram(pkg.version)
    .exitOverride()
    .configureOutput({ writeErr: () => {} }); // errors are printed once, below, as one line
  let options: ReturnType<typeof toProxyOptions>;
  try {
    program.parse(argv);
    options = toProxyOptions(program.opts<RawOptions>());
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
      fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
    }
    if (error instanceof UsageError) fail(2, error.message);
    throw error;
  }

  if (options.upstreamUrl) {
    const reason = await probeUpstream(options.upstreamUrl);
    if (reason) fail(1, `upstream ${redactUrl(options.upstreamUrl)} did not answer an MCP initialize: ${reason}`);
  }

  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const proxy = await startProxy({ ...options, onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined) }).catch((error: Error) =>
    fail(1, `cannot start: ${error.message}`),
  );
  if (options.verbose) proxy.events.on('exchange', (event) => log(formatExchange(event)));
  const lines = [`mcp-rewind ${pkg.version} — ${proxy.mode} mode`, `  MCP endpoint  ${proxy.url}`];
  if (options.upstreamUrl) lines.push(`  upstream      ${redactUrl(options.upstreamUrl)}`);
  if (proxy.store) lines.push(`  cassette      ${options.cacheDir} (${proxy.store.size} entries)`);
  process.stdout.write(lines.join('\n') + '\n');

  const stop = (): void => {
    void proxy.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A proxy must outlive a bug in one exchange: report it and keep serving the others.
  process.on('uncaughtException', (error) => log(`internal error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => log(`internal error: ${String((reason as Error)?.stack ?? reason)}`));
}

void main(process.argv);
