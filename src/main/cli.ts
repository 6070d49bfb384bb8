import { readFileSync, statSync } from 'node:fs';
import { MODE_TRAITS } from '../shared/modes.js';
import { CassetteMissingError } from './engine/errors.js';
import type { Log } from './engine/log.js';
import type { RunningProxy } from './engine/proxy.js';
import type { RecordingSwitch } from './engine/recording-switch.js';
import type { ChildSpec } from './engine/transports/child-upstream.js';
import type { LaunchedChild } from './engine/transports/stdio-child.js';
import type { UpstreamSignIn } from './engine/upstream/oauth/sign-in.js';
import type { OpenedUpstream, UpstreamSpec } from './engine/upstream/open.js';
import type { AttachLink } from './intercept/attach-link.js';
import type { MissTally } from './cli/miss-tally.js';
import type { toProxyOptions, RawOptions } from './cli/options.js';
import { buildProgram } from './cli/program.js';
import { addSubcommands, type Subcommand } from './cli/commands.js';
import { fail, parse } from './cli/parse-argv.js';
import { guardStdStreams, stayUp, writeStderr, writeStdout } from './cli/process-guard.js';

// What a mode needs is imported where it is used: `--version` loads commander and the flags only, a pass-through no
// UI server, insight, HAR or intercept code (bench/startup.ts measures it).
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const serverInfo = { name: 'mcp-rewind', version: pkg.version };
guardStdStreams();

type ProxyCliOptions = ReturnType<typeof toProxyOptions>;

interface CliLogs {
  /** stderr, scrubbed by --redact */
  log: (line: string) => void;
  /** a bridged upstream's lines: every one with --verbose, else warnings and errors */
  bridgeLog: Log;
}

async function cliLogs(options: ProxyCliOptions): Promise<CliLogs> {
  const { compileRedactions, scrub } = await import('./engine/redact.js');
  // --redact patterns hold for what is printed as much as for what is written (a miss's arguments, verbose lines)
  const redactions = compileRedactions(options.redact ?? []);
  const log = (line: string): void => writeStderr(scrub(line, redactions));
  // a stdio or legacy HTTP+SSE upstream is bridged onto Streamable HTTP; the pipeline only ever sees Streamable HTTP
  const bridgeLog: Log = (line, level) => (options.verbose || level !== 'info' ? log(line) : undefined);
  return { log, bridgeLog };
}

function refuseFileCassette(options: ProxyCliOptions): void {
  if (MODE_TRAITS[options.mode].records && statSync(options.cacheDir ?? '', { throwIfNoEntry: false })?.isFile()) {
    fail(
      1,
      `cannot start: --cache ${options.cacheDir} is a single-file cassette, which is read-only: ${options.mode} mode needs a folder`,
    );
  }
}

/** The upstream the flags name: the words after `--`, --upstream-command or --url; none in replay without one. */
async function upstreamSpecOf(options: ProxyCliOptions): Promise<UpstreamSpec | undefined> {
  const argvSpec = options.upstreamArgv && { command: options.upstreamArgv[0], args: options.upstreamArgv.slice(1) };
  return (
    argvSpec ??
    (options.upstreamCommand
      ? (await import('./engine/upstream/command.js')).commandSpec(options.upstreamCommand)
      : options.upstreamUrl
        ? { url: options.upstreamUrl }
        : undefined)
  );
}

/** The upstream command for the banner (the words after `--` quoted, or --upstream-command); none for a URL. */
async function commandLabel(options: ProxyCliOptions): Promise<string | undefined> {
  return options.upstreamArgv
    ? `${options.upstreamArgv.map((await import('../shared/shell-quote.js')).shellQuote).join(' ')} (stdio)`
    : options.upstreamCommand && `${options.upstreamCommand} (stdio)`;
}

/** --stdio in front of a command (or replay): stdio to stdio through the pipeline in process, until stdin ends. */
async function pipeStdio(
  options: ProxyCliOptions,
  command: ChildSpec | undefined,
  launched: LaunchedChild | undefined,
  { log, bridgeLog }: CliLogs,
): Promise<never> {
  const label = await commandLabel(options);
  const { runStdioPipe } = await import('./cli/stdio-pipe.js');
  return runStdioPipe(options, { spec: command, launched, label, serverInfo, log, bridgeLog, fail });
}

/** Opens the upstream the pipeline talks to (the run ends when it does not answer MCP), signed in where it needs one. */
async function openCliUpstream(
  options: ProxyCliOptions,
  spec: UpstreamSpec | undefined,
  { log, bridgeLog }: CliLogs,
): Promise<{ upstream: OpenedUpstream | undefined; upstreamAuth: UpstreamSignIn | undefined }> {
  // an upstream that answers 401: the proxy signs in (its tokens in the data folder), the client needs nothing
  const signIn =
    spec && 'url' in spec && MODE_TRAITS[options.mode].forwards
      ? (await import('./cli/oauth-sign-in.js')).cliSignIn(spec.url, options.oauth, log)
      : undefined;
  // attached, the agent is waiting for its server: no probe (a failing command answers the agent's initialize with the reason)
  const openOptions = {
    log: bridgeLog,
    idleMs: options.sessionIdleMs,
    allowedOrigins: options.allowedOrigins,
    probe: !options.attach,
    auth: signIn,
  };
  const upstream = spec
    ? await (
        await import('./engine/upstream/open.js')
      )
        .openUpstream(spec, openOptions)
        .catch((error: Error) => fail(1, error.message))
    : undefined;
  const upstreamAuth = upstream?.bridge ? undefined : signIn;
  // the sign-in starts at once; requests that need the upstream wait for it (or get the step that failed)
  if (upstream?.needsSignIn) void signIn?.signIn().catch(() => {});
  return { upstream, upstreamAuth };
}

/** What the proxy runs with, once its upstream is open. */
interface ProxyRun {
  options: ProxyCliOptions;
  logs: CliLogs;
  upstream: OpenedUpstream | undefined;
  upstreamAuth: UpstreamSignIn | undefined;
  upstreamLabel: string | undefined;
  /** attached: the recorder the app switches */
  recording: RecordingSwitch | undefined;
  misses: MissTally;
}

/** Starts the proxy in front of the upstream; the run ends, the upstream closed, when it cannot start. */
async function startCliProxy(run: ProxyRun): Promise<RunningProxy> {
  const { options, upstream, upstreamAuth, recording, misses } = run;
  const { log } = run.logs;
  const { startProxy } = await import('./engine/proxy.js');
  return startProxy({
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
}

/** Attached: the link to the app, started (a failed start is logged, the proxy runs on). */
async function startAttachLink(run: ProxyRun, proxy: RunningProxy, recording: RecordingSwitch): Promise<AttachLink> {
  const { options, upstreamLabel } = run;
  const link = new (await import('./intercept/attach-link.js')).AttachLink(proxy, recording, {
    ...options.attach!,
    dataDir: options.attach!.dataDir ?? (await import('./web/user-data.js')).userDataDir(),
    upstream: upstreamLabel ?? '',
    log: run.logs.bridgeLog,
  });
  await link.start().catch((error: Error) => run.logs.log(`attach: ${error.message}`));
  return link;
}

/** Ends the run: the link, the recorder, the proxy and the upstream closed, what went wrong said. */
function closerOf(run: ProxyRun, proxy: RunningProxy, link: AttachLink | undefined): () => Promise<void> {
  const { options, upstream, recording, misses } = run;
  const { log } = run.logs;
  const failures = proxy.recordFailures;
  return async () => {
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
}

/** The banner: version and mode, the endpoint, the upstream, its sign-in, the cassette and the rules. */
async function bannerLines(run: ProxyRun, proxy: RunningProxy): Promise<string[]> {
  const { options, upstreamLabel, upstreamAuth } = run;
  const lines = [`mcp-rewind ${pkg.version} — ${proxy.mode} mode`, `  MCP endpoint  ${proxy.url}`];
  if (upstreamLabel) lines.push(`  upstream      ${upstreamLabel}`);
  if (upstreamAuth && upstreamAuth.info().state !== 'none')
    lines.push(
      `  sign-in       ${(await import('./cli/oauth-options.js')).describeSignIn('the upstream', upstreamAuth.info())}`,
    );
  if (proxy.store) lines.push(`  cassette      ${options.cacheDir} (${proxy.store.size} entries)`);
  if (options.rules)
    lines.push(
      `  rules         ${options.rules.overlay.tools.length} tool rule(s), passthrough ${options.rules.overlay.passthrough}`,
    );
  return lines;
}

/** --stdio over the HTTP endpoint: stdin and stdout bridged onto it until stdin ends, then the run exits. */
async function bridgeStdioToProxy(
  run: ProxyRun,
  proxy: RunningProxy,
  link: AttachLink | undefined,
  end: { close: () => Promise<void>; status: () => number },
): Promise<void> {
  const { options } = run;
  const { log } = run.logs;
  const onMessage = link && ((message: unknown) => link.seeClientMessage(message));
  const { bridgeStdio } = await import('./engine/transports/downstream-stdio.js');
  const stdio = await bridgeStdio(proxy.url, { stdin: process.stdin, stdout: process.stdout, onMessage }, (line) =>
    options.verbose ? log(`stdio: ${line}`) : undefined,
  );
  await stdio.done;
  await end.close().catch((error: Error) => log(`internal error on shutdown: ${error.stack ?? error.message}`));
  process.exit(end.status());
}

async function proxyCommand(options: ProxyCliOptions): Promise<void> {
  const logs = await cliLogs(options);
  const { log } = logs;
  refuseFileCassette(options);
  const spec = await upstreamSpecOf(options);
  // --stdio in front of a command (or replay): stdio to stdio through the pipeline in process, no HTTP hop
  const stdioRoute = options.stdio ? await import('./cli/stdio-route.js') : undefined;
  if (stdioRoute?.pipesStdio(options, spec)) {
    const command = spec && 'command' in spec ? spec : undefined;
    // the server first: it boots while the pipeline loads (what follows imports most of the engine)
    return pipeStdio(options, command, stdioRoute.launchEarly(options, command), logs);
  }
  const { upstream, upstreamAuth } = await openCliUpstream(options, spec, logs);
  const upstreamLabel = (await commandLabel(options)) || upstream?.label;
  const recording =
    options.attach &&
    new (await import('./engine/recording-switch.js')).RecordingSwitch(logs.bridgeLog, options.durable);
  const misses = new (await import('./cli/miss-tally.js')).MissTally();
  const run: ProxyRun = { options, logs, upstream, upstreamAuth, upstreamLabel, recording, misses };
  const proxy = await startCliProxy(run);
  // a record run in which anything could not be recorded ends with status 1, saying so (the answers went out), as
  // does a strict replay that missed
  const status = (): number => (proxy.recordFailures.count > 0 || (options.strict && misses.count > 0) ? 1 : 0);
  const link = recording && (await startAttachLink(run, proxy, recording));
  const close = closerOf(run, proxy, link);
  if (options.verbose) {
    const { formatExchange } = await import('./cli/format.js');
    proxy.events.on('exchange', (event) => log(formatExchange(event)));
  }
  const lines = await bannerLines(run, proxy);
  if (!options.stdio) {
    writeStdout(lines.join('\n') + '\n');
    stayUp(close, log, status);
    return;
  }
  // --stdio: stdout carries MCP messages only; the banner goes to stderr, and the end of stdin ends the run
  lines.push('  MCP on stdio  (stdin/stdout)');
  log(lines.join('\n'));
  stayUp(close, log, status);
  await bridgeStdioToProxy(run, proxy, link, { close, status });
}

/** `mcp-rewind <command> …` runs a row of commands.ts (commander picks it); anything else is the proxy. */
async function main(argv: string[]): Promise<void> {
  let chosen: Subcommand | undefined;
  const program = addSubcommands(buildProgram(pkg.version), (command) => (chosen = command));
  const dashdash = argv.indexOf('--', 2);
  const afterDashDash = dashdash < 0 ? [] : argv.slice(dashdash + 1);
  // the words after `--` are the upstream's (`-- mcp run server.py`), never a command: commander sees ours only
  const options = await parse(program, dashdash < 0 ? argv : argv.slice(0, dashdash), async (opts, args) =>
    chosen
      ? undefined
      : (await import('./cli/options.js')).toProxyOptions(
          opts as unknown as RawOptions,
          [...args, ...afterDashDash],
          afterDashDash,
        ),
  );
  await (chosen ? chosen.run(argv, pkg.version) : proxyCommand(options!));
}

void main(process.argv);
