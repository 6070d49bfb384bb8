import { readFileSync, statSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { toProxyOptions, type RawOptions } from './cli/options.js';
import { buildProgram } from './cli/program.js';
import { CassetteMissingError, UsageError } from './engine/errors.js';
import { MissTally } from './cli/miss-tally.js';
import { buildServeProgram, toServeOptions } from './cli/serve-command.js';
import { formatExchange } from './cli/format.js';
import { buildVerifyProgram, runVerify, toVerifyOptions } from './cli/verify-command.js';
import { buildExportProgram, runExport, toExportOptions } from './cli/export-command.js';
import { buildDiffProgram, runDiff, toDiffOptions } from './cli/diff-command.js';
import { compileRedactions, scrub } from './engine/redact.js';
import { guardStdStreams, stayUp, writeStderr, writeStdout } from './cli/process-guard.js';
import { persistentToken } from './cli/token-file.js';
import type { Log } from './engine/log.js';
import { MODE_TRAITS } from '../shared/modes.js';
import { startProxy } from './engine/proxy.js';
import { startServe } from './engine/serve.js';
import { bridgeStdio } from './engine/transports/downstream-stdio.js';
import { commandSpec } from './engine/upstream/command.js';
import { openUpstream } from './engine/upstream/open.js';
import { cliSignIn, describeSignIn, reportSignIn } from './cli/oauth-options.js';
import { RecordingSwitch } from './engine/recording-switch.js';
import { AttachLink } from './intercept/attach-link.js';
import { userDataDir } from './web/user-data.js';
import { shellQuote } from '../shared/shell-quote.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const serverInfo = { name: 'mcp-rewind', version: pkg.version };
guardStdStreams();
const log = writeStderr;

function fail(status: number, message: string): never {
  writeStderr(`mcp-rewind: ${message}`);
  process.exit(status);
}

/** Parses argv with a commander program; usage errors become one line and exit status 2. */
function parse<T>(program: Command, argv: string[], convert: (opts: Record<string, unknown>, args: string[]) => T): T {
  program.exitOverride().configureOutput({ writeErr: () => {} }); // errors are printed once, as one line
  try {
    program.parse(argv);
    return convert(program.opts(), program.args);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
      fail(2, `${error.message.replace(/^error: /, '')} (see --help)`);
    }
    if (error instanceof UsageError) fail(2, error.message);
    throw error;
  }
}

async function proxyCommand(argv: string[]): Promise<void> {
  const program = buildProgram(pkg.version);
  const dashdash = argv.indexOf('--', 2);
  const afterDashDash = dashdash < 0 ? [] : argv.slice(dashdash + 1);
  const options = parse(program, argv, (opts) =>
    toProxyOptions(opts as unknown as RawOptions, program.args, afterDashDash),
  );
  // --redact patterns hold for what is printed as much as for what is written (a miss's arguments, verbose lines)
  const redactions = compileRedactions(options.redact ?? []);
  const log = (line: string): void => writeStderr(scrub(line, redactions));
  if (MODE_TRAITS[options.mode].records && statSync(options.cacheDir ?? '', { throwIfNoEntry: false })?.isFile()) {
    fail(
      1,
      `cannot start: --cache ${options.cacheDir} is a single-file cassette, which is read-only: ${options.mode} mode needs a folder`,
    );
  }
  // a stdio or legacy HTTP+SSE upstream is bridged onto Streamable HTTP; the pipeline only ever sees Streamable HTTP
  const bridgeLog: Log = (line, level) => (options.verbose || level !== 'info' ? log(line) : undefined);
  const argvSpec = options.upstreamArgv && { command: options.upstreamArgv[0], args: options.upstreamArgv.slice(1) };
  const spec =
    argvSpec ??
    (options.upstreamCommand
      ? commandSpec(options.upstreamCommand)
      : options.upstreamUrl
        ? { url: options.upstreamUrl }
        : undefined);
  // --stdio in front of a command (or replay): stdio to stdio through the pipeline in process, no HTTP hop
  const stdioPipe = options.stdio ? await import('./cli/stdio-pipe.js') : undefined;
  if (stdioPipe?.pipesStdio(options, spec)) {
    const label = argvSpec
      ? `${options.upstreamArgv!.map(shellQuote).join(' ')} (stdio)`
      : options.upstreamCommand && `${options.upstreamCommand} (stdio)`;
    const command = spec && 'command' in spec ? spec : undefined;
    return stdioPipe.runStdioPipe(options, { spec: command, label, serverInfo, log, bridgeLog, fail });
  }
  // an upstream that answers 401: the proxy signs in (its tokens in the data folder), the client needs nothing
  const signIn =
    spec && 'url' in spec && MODE_TRAITS[options.mode].forwards ? cliSignIn(spec.url, options.oauth) : undefined;
  if (signIn) reportSignIn(signIn, options.oauth, log);
  // attached, the agent is waiting for its server: no probe (a failing command answers the agent's initialize with the reason)
  const openOptions = {
    log: bridgeLog,
    idleMs: options.sessionIdleMs,
    allowedOrigins: options.allowedOrigins,
    probe: !options.attach,
    auth: signIn,
  };
  const upstream = spec
    ? await openUpstream(spec, openOptions).catch((error: Error) => fail(1, error.message))
    : undefined;
  const upstreamAuth = upstream?.bridge ? undefined : signIn;
  // the sign-in starts at once; requests that need the upstream wait for it (or get the step that failed)
  if (upstream?.needsSignIn) void signIn?.signIn().catch(() => {});
  const upstreamLabel = argvSpec
    ? `${options.upstreamArgv!.map(shellQuote).join(' ')} (stdio)`
    : options.upstreamCommand
      ? `${options.upstreamCommand} (stdio)`
      : upstream?.label;
  const recording = options.attach && new RecordingSwitch(bridgeLog, options.durable);
  const misses = new MissTally();
  const proxy = await startProxy({
    ...options,
    upstreamUrl: upstream?.url,
    upstreamDispatch: upstream?.bridge?.dispatch,
    upstreamAuth,
    serverInfo,
    // attached: rules that the app can replace live, and a recorder that it can switch
    ...(recording ? { rules: { overlay: { tools: [], passthrough: true } }, extraHooks: [recording] } : {}),
    onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined),
    onMiss: (miss) => log(`replay miss: ${misses.add(miss)}`),
  }).catch(async (error: Error) => {
    await upstream?.close();
    if (error instanceof CassetteMissingError)
      fail(
        2,
        `cannot replay: ${error.message} (record it first, or add --record-missing with --url or --upstream-command to record what is missing)`,
      );
    return fail(1, `cannot start: ${error.message}`);
  });
  // a record run in which anything could not be recorded ends with status 1, saying so (the answers went out), as
  // does a strict replay that missed
  const failures = proxy.recordFailures;
  const status = (): number => (failures.count > 0 || (options.strict && misses.count > 0) ? 1 : 0);
  const link =
    recording &&
    new AttachLink(proxy, recording, {
      ...options.attach!,
      dataDir: options.attach!.dataDir ?? userDataDir(),
      upstream: upstreamLabel ?? '',
      log: bridgeLog,
    });
  await link?.start().catch((error: Error) => log(`attach: ${error.message}`));
  const close = async (): Promise<void> => {
    await link?.close();
    if (recording) await recording.close();
    await proxy.close();
    await upstream?.close();
    if (failures.count > 0)
      log(
        `mcp-rewind: ${failures.count} recording(s) could not be written to the cassette (first: ${failures.first}); exit status 1`,
      );
    if (options.strict && misses.count > 0) log(`mcp-rewind: --strict: ${misses.summary()}`);
  };
  if (options.verbose) proxy.events.on('exchange', (event) => log(formatExchange(event)));
  const lines = [`mcp-rewind ${pkg.version} — ${proxy.mode} mode`, `  MCP endpoint  ${proxy.url}`];
  if (upstreamLabel) lines.push(`  upstream      ${upstreamLabel}`);
  if (upstreamAuth && upstreamAuth.info().state !== 'none')
    lines.push(`  sign-in       ${describeSignIn('the upstream', upstreamAuth.info())}`);
  if (proxy.store) lines.push(`  cassette      ${options.cacheDir} (${proxy.store.size} entries)`);
  if (options.rules)
    lines.push(
      `  rules         ${options.rules.overlay.tools.length} tool rule(s), passthrough ${options.rules.overlay.passthrough}`,
    );
  if (!options.stdio) {
    writeStdout(lines.join('\n') + '\n');
    stayUp(close, log, status);
    return;
  }
  // --stdio: stdout carries MCP messages only; the banner goes to stderr, and the end of stdin ends the run
  lines.push('  MCP on stdio  (stdin/stdout)');
  log(lines.join('\n'));
  stayUp(close, log, status);
  const onMessage = link && ((message: unknown) => link.seeClientMessage(message));
  const stdio = await bridgeStdio(proxy.url, { stdin: process.stdin, stdout: process.stdout, onMessage }, (line) =>
    options.verbose ? log(`stdio: ${line}`) : undefined,
  );
  await stdio.done;
  await close().catch((error: Error) => log(`internal error on shutdown: ${error.stack ?? error.message}`));
  process.exit(status());
}

async function serveCommand(argv: string[]): Promise<void> {
  const options = parse(buildServeProgram(process.env), [argv[0], argv[1], ...argv.slice(3)], (opts) =>
    toServeOptions(opts),
  );
  // authenticated by default: a token of our own, kept (0600) in the data folder, printed when it is made
  let tokenLine: string;
  if (options.noAuth) {
    tokenLine = 'none (--no-auth: anyone who can reach this port can create sessions and read their calls)';
    log('mcp-rewind: warning: --no-auth: the REST API needs no token');
  } else if (options.apiToken) tokenLine = '--api-token / MIMCP_API_TOKEN';
  else {
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
  const running = await startServe({
    ...options,
    serverInfo,
    onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined),
    onExchange: options.verbose ? (sessionId, event) => log(`[${sessionId}] ${formatExchange(event)}`) : undefined,
  }).catch((error: Error) => fail(1, `cannot start: ${error.message}`));
  writeStdout(
    [
      `mcp-rewind ${pkg.version} — serve`,
      `  REST API      ${running.url}/api/sessions  (Authorization: Bearer <API token>)`,
      `  API token     ${tokenLine}`,
      `  MCP endpoint  ${running.url}/mcp  (Authorization: Bearer <session token>, or ${running.url}/s/<session token>/mcp)`,
    ].join('\n') + '\n',
  );
  stayUp(() => running.close());
}

/** `mcp-rewind verify|export`: one run, exit status 0 (no drift), 1 (drift, unreachable server, I/O error), 2 (usage). */
async function verifyCommand(argv: string[]): Promise<void> {
  const options = parse(buildVerifyProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toVerifyOptions(opts));
  const status = await runVerify(options, writeStdout, {}, log).catch((error: Error) =>
    fail(1, error.name === 'UnreachableError' ? `upstream ${error.message}` : error.message),
  );
  process.exit(status);
}

/** `mcp-rewind diff A B`: exit status 0 (no breaking change), 1 (breaking, or a cassette that cannot be read), 2 (usage). */
async function diffCommand(argv: string[]): Promise<void> {
  const options = parse(buildDiffProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts, args) =>
    toDiffOptions(opts, args),
  );
  process.exit(await runDiff(options, writeStdout, log).catch((error: Error) => fail(1, error.message)));
}

async function exportCommand(argv: string[]): Promise<void> {
  const options = parse(buildExportProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toExportOptions(opts));
  writeStdout(await runExport(options, pkg.version, log).catch((error: Error) => fail(1, error.message)));
}

/** `mcp-rewind auth status|login <url>|logout <url>`: exit status 0, 1 (a sign-in failed), 2 (usage). */
async function authCommand(argv: string[]): Promise<void> {
  const { buildAuthProgram, runAuth, toAuthOptions } = await import('./cli/auth-command.js');
  const program = buildAuthProgram();
  const options = parse(program, [argv[0], argv[1], ...argv.slice(3)], () => toAuthOptions(program));
  process.exit(await runAuth(options, writeStdout, log));
}

/** `mcp-rewind lint|cost`: one run over a recording (lint: exit 1 on any error finding). */
async function lintCommand(argv: string[]): Promise<void> {
  const { buildLintProgram, runLint, toLintOptions } = await import('./cli/lint-command.js');
  const options = parse(buildLintProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toLintOptions(opts));
  process.exit(await runLint(options, writeStdout, log).catch((error: Error) => fail(1, error.message)));
}

async function costCommand(argv: string[]): Promise<void> {
  const { buildCostProgram, runCost, toCostOptions } = await import('./cli/cost-command.js');
  const options = parse(buildCostProgram(), [argv[0], argv[1], ...argv.slice(3)], (opts) => toCostOptions(opts));
  await runCost(options, writeStdout).catch((error: Error) => fail(1, error.message));
}

const subcommands: Record<string, (argv: string[]) => Promise<void>> = {
  serve: serveCommand,
  auth: authCommand,
  verify: verifyCommand,
  export: exportCommand,
  diff: diffCommand,
  lint: lintCommand,
  cost: costCommand,
  mcp: (argv) => import('./cli/mcp-command.js').then((m) => m.mcpCommand(argv, pkg.version)),
  ui: (argv) => import('./cli/ui-command.js').then((m) => m.uiCommand(argv, pkg.version)),
  app: (argv) => import('./cli/app-command.js').then((m) => m.appCommand(argv)),
  redact: (argv) =>
    import('./cli/redact-command.js').then(async (m) =>
      process.exit(await m.redactCommand(argv, { out: writeStdout, err: writeStderr })),
    ),
  intercept: (argv) =>
    import('./cli/intercept-command.js').then(async (m) =>
      process.exit(await m.interceptCommand(argv, pkg.version, { out: writeStdout, err: writeStderr })),
    ),
};
void (Object.hasOwn(subcommands, process.argv[2] ?? '') ? subcommands[process.argv[2]] : proxyCommand)(process.argv);
