/**
 * The runs of the one-shot and server subcommands (`mcp-rewind <name> …`, argv as process.argv with the name at
 * index 2). Each loads its command's module only when it runs, so `mcp-rewind --version` or a proxy loads none.
 */
import { commandArgv, fail, parse } from './parse-argv.js';
import { stayUp, writeStderr as log, writeStdout } from './process-guard.js';

/** `mcp-rewind serve`: authenticated by default, with a token of its own kept (0600) in the data folder. */
export async function serveRun(argv: string[], version: string): Promise<void> {
  const { buildServeProgram, toServeOptions } = await import('./serve-command.js');
  const options = await parse(buildServeProgram(process.env), commandArgv(argv), (opts) => toServeOptions(opts));
  let tokenLine: string;
  if (options.noAuth) {
    tokenLine = 'none (--no-auth: anyone who can reach this port can create sessions and read their calls)';
    log('mcp-rewind: warning: --no-auth: the REST API needs no token');
  } else if (options.apiToken) tokenLine = '--api-token / MIMCP_API_TOKEN';
  else {
    const { persistentToken } = await import('./token-file.js');
    let kept: { token: string; created: boolean };
    try {
      kept = persistentToken(options.tokenFile);
    } catch (error) {
      return fail(
        1,
        `cannot keep the API token in ${options.tokenFile}: ${(error as Error).message} (give --api-token, or --data-dir)`,
      );
    }
    options.apiToken = kept.token;
    tokenLine = kept.created ? `${kept.token}  (new; kept in ${options.tokenFile})` : `in ${options.tokenFile}`;
  }
  const [{ startServe }, { formatExchange }] = await Promise.all([import('../engine/serve.js'), import('./format.js')]);
  const running = await startServe({
    ...options,
    serverInfo: { name: 'mcp-rewind', version },
    onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined),
    onExchange: options.verbose ? (sessionId, event) => log(`[${sessionId}] ${formatExchange(event)}`) : undefined,
  }).catch((error: Error) => fail(1, `cannot start: ${error.message}`));
  writeStdout(
    [
      `mcp-rewind ${version} — serve`,
      `  REST API      ${running.url}/api/sessions  (Authorization: Bearer <API token>)`,
      `  API token     ${tokenLine}`,
      `  MCP endpoint  ${running.url}/mcp  (Authorization: Bearer <session token>, or ${running.url}/s/<session token>/mcp)`,
    ].join('\n') + '\n',
  );
  stayUp(() => running.close());
}

/** `mcp-rewind verify`: exit status 0 (no drift), 1 (drift, unreachable server, I/O error), 2 (usage). */
export async function verifyRun(argv: string[]): Promise<void> {
  const { buildVerifyProgram, runVerify, toVerifyOptions } = await import('./verify-command.js');
  const options = await parse(buildVerifyProgram(), commandArgv(argv), (opts) => toVerifyOptions(opts));
  const status = await runVerify(options, writeStdout, {}, log).catch((error: Error) =>
    fail(1, error.name === 'UnreachableError' ? `upstream ${error.message}` : error.message),
  );
  process.exit(status);
}

/** `mcp-rewind diff A B`: exit status 0 (no breaking change), 1 (breaking, or a cassette that cannot be read), 2 (usage). */
export async function diffRun(argv: string[]): Promise<void> {
  const { buildDiffProgram, runDiff, toDiffOptions } = await import('./diff-command.js');
  const options = await parse(buildDiffProgram(), commandArgv(argv), (opts, args) => toDiffOptions(opts, args));
  process.exit(await runDiff(options, writeStdout, log).catch((error: Error) => fail(1, error.message)));
}

export async function exportRun(argv: string[], version: string): Promise<void> {
  const { buildExportProgram, runExport, toExportOptions } = await import('./export-command.js');
  const options = await parse(buildExportProgram(), commandArgv(argv), (opts) => toExportOptions(opts));
  writeStdout(await runExport(options, version, log).catch((error: Error) => fail(1, error.message)));
}

/** `mcp-rewind auth status|login <url>|logout <url>`: exit status 0, 1 (a sign-in failed), 2 (usage). */
export async function authRun(argv: string[]): Promise<void> {
  const { buildAuthProgram, runAuth, toAuthOptions } = await import('./auth-command.js');
  const program = buildAuthProgram();
  const options = await parse(program, commandArgv(argv), () => toAuthOptions(program));
  process.exit(await runAuth(options, writeStdout, log));
}

/** `mcp-rewind lint`: one run over a recording, exit status 1 on any error finding. */
export async function lintRun(argv: string[]): Promise<void> {
  const { buildLintProgram, runLint, toLintOptions } = await import('./lint-command.js');
  const options = await parse(buildLintProgram(), commandArgv(argv), (opts) => toLintOptions(opts));
  process.exit(await runLint(options, writeStdout, log).catch((error: Error) => fail(1, error.message)));
}

export async function costRun(argv: string[]): Promise<void> {
  const { buildCostProgram, runCost, toCostOptions } = await import('./cost-command.js');
  const options = await parse(buildCostProgram(), commandArgv(argv), (opts) => toCostOptions(opts));
  await runCost(options, writeStdout).catch((error: Error) => fail(1, error.message));
}
