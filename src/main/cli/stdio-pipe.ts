import { MODE_TRAITS } from '../../shared/modes.js';
import { CassetteMissingError } from '../engine/errors.js';
import type { Log } from '../engine/log.js';
import { RecordingSwitch } from '../engine/recording-switch.js';
import { startStdioProxy } from '../engine/stdio-proxy.js';
import type { ChildSpec } from '../engine/transports/child-upstream.js';
import type { LaunchedChild } from '../engine/transports/stdio-child.js';
import { AttachLink } from '../intercept/attach-link.js';
import { userDataDir } from '../web/user-data.js';
import { formatExchange } from './format.js';
import { MissTally } from './miss-tally.js';
import type { toProxyOptions } from './options.js';
import { stayUp } from './process-guard.js';

type ProxyCliOptions = ReturnType<typeof toProxyOptions>;

export interface StdioPipeContext {
  spec?: ChildSpec;
  /** that command, spawned already (stdio-route.ts launchEarly) */
  launched?: LaunchedChild;
  /** the upstream for the banner and the app (`node server.js (stdio)`) */
  label?: string;
  serverInfo: { name: string; version: string };
  log: (line: string) => void;
  /** the child's stderr and fate */
  bridgeLog: Log;
  fail(status: number, message: string): never;
}

/** `--stdio` stdio to stdio: runs until stdin ends, then exits with the run's status (as proxyCommand does). */
export async function runStdioPipe(options: ProxyCliOptions, ctx: StdioPipeContext): Promise<never> {
  const { log, bridgeLog } = ctx;
  const recording = options.attach && new RecordingSwitch(bridgeLog, options.durable);
  const misses = new MissTally();
  const attached: { link?: AttachLink } = {}; // the client's initialize may come before the link is made
  const proxy = await startStdioProxy({
    ...options,
    command: ctx.spec,
    launched: ctx.launched,
    stdin: process.stdin,
    stdout: process.stdout,
    serverInfo: ctx.serverInfo,
    upstreamLog: bridgeLog,
    // attached: rules that the app can replace live, and a recorder that it can switch
    ...(recording ? { rules: { overlay: { tools: [], passthrough: true } }, extraHooks: [recording] } : {}),
    onClientMessage: (message) => attached.link?.seeClientMessage(message),
    onLog: (line, level) => (options.verbose || level === 'warn' ? log(line) : undefined),
    onMiss: (miss) => log(`replay miss: ${misses.add(miss)}`),
  }).catch((error: Error) => {
    ctx.launched?.child.kill();
    return error instanceof CassetteMissingError
      ? ctx.fail(
          2,
          `cannot replay: ${error.message} (record it first, or add --record-missing with --upstream-command)`,
        )
      : ctx.fail(1, `cannot start: ${error.message}`);
  });
  const failures = proxy.recordFailures;
  const status = (): number => (failures.count > 0 || (options.strict && misses.count > 0) ? 1 : 0);
  const link =
    recording &&
    new AttachLink(proxy, recording, {
      ...options.attach!,
      dataDir: options.attach!.dataDir ?? userDataDir(),
      upstream: ctx.label ?? '',
      log: bridgeLog,
    });
  attached.link = link || undefined;
  await link?.start().catch((error: Error) => log(`attach: ${error.message}`));
  const close = async (): Promise<void> => {
    await link?.close();
    if (recording) await recording.close();
    await proxy.close();
    if (failures.count > 0)
      log(
        `mcp-rewind: ${failures.count} recording(s) could not be written to the cassette (first: ${failures.first}); exit status 1`,
      );
    if (options.strict && misses.count > 0) log(`mcp-rewind: --strict: ${misses.summary()}`);
  };
  if (options.verbose) proxy.events.on('exchange', (event) => log(formatExchange(event)));
  log(banner(options, ctx, proxy.store?.size));
  stayUp(close, log, status);
  proxy.listen();
  await proxy.done;
  await close().catch((error: Error) => log(`internal error on shutdown: ${error.stack ?? error.message}`));
  process.exit(status());
}

function banner(options: ProxyCliOptions, ctx: StdioPipeContext, entries: number | undefined): string {
  const lines = [`mcp-rewind ${ctx.serverInfo.version} — ${options.mode} mode`, '  MCP on stdio  (stdin/stdout)'];
  if (ctx.label && MODE_TRAITS[options.mode].forwards) lines.push(`  upstream      ${ctx.label}`);
  if (entries !== undefined) lines.push(`  cassette      ${options.cacheDir} (${entries} entries)`);
  if (options.rules)
    lines.push(
      `  rules         ${options.rules.overlay.tools.length} tool rule(s), passthrough ${options.rules.overlay.passthrough}`,
    );
  return lines.join('\n');
}
