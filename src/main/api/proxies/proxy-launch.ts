import { resolve } from 'node:path';
import type { ProxyConfig } from '../../../shared/api.js';
import { MODE_TRAITS } from '../../../shared/modes.js';
import { upstreamLimitsMs } from '../../../shared/upstream-limits.js';
import type { Log } from '../../engine/log.js';
import { startProxy, type RunningProxy } from '../../engine/proxy.js';
import { splitShellWords } from '../../engine/transports/shell-words.js';
import type { OpenedUpstream } from '../../engine/upstream/open.js';
import type { UpstreamAuth } from '../../engine/upstream/oauth/challenge.js';
import { engineRules } from '../../../shared/rules/schema.js';
import { checkCassette, openUpstream, ProxyStartError } from './upstream-check.js';

export interface LaunchedProxy {
  running: RunningProxy;
  /** the upstream: detected, bridged (stdio, legacy SSE) and probed as the CLI does; none in replay */
  upstream?: OpenedUpstream;
}

export interface LaunchContext {
  /** tried first when the config asks for any port */
  lastPort?: number;
  /** browser origins the app's proxies all admit (the browser UI's page, `ui --allowed-origin`), read per request */
  browserOrigins?: () => readonly string[];
  /** the upstream URL's OAuth sign-in (proxy-sign-in.ts) */
  auth?: UpstreamAuth;
}

/**
 * Starts a UI proxy once it can serve: its cassette exists (replay), its upstream answered initialize (live modes).
 * `stillWanted` says whether a stop came meanwhile. A request from a browser page is refused unless its origin is one
 * of the config's `allowedOrigins` or the app's `browserOrigins`. Failures are ProxyStartErrors naming the form's
 * field where one is at fault; nothing is left open.
 */
export async function launchProxy(
  config: ProxyConfig,
  context: LaunchContext,
  log: Log,
  stillWanted: () => boolean,
): Promise<LaunchedProxy> {
  const { lastPort, browserOrigins = () => [], auth } = context;
  const cacheDir = config.cacheDir === undefined ? undefined : resolve(config.cacheDir);
  const own = config.allowedOrigins ?? [];
  const allowedOrigins = (): readonly string[] => [...own, ...browserOrigins()];
  const start = (port: number, upstreamUrl: string | undefined): Promise<RunningProxy> =>
    startProxy({
      mode: config.mode,
      upstreamUrl,
      upstreamDispatch: upstream?.bridge?.dispatch,
      // a bridged upstream (stdio, legacy SSE) is never signed in to: only a Streamable HTTP URL
      upstreamAuth: upstream?.bridge ? undefined : auth,
      cacheDir,
      port,
      allowedOrigins,
      // always with rules, so that they can be edited live
      rules: engineRules(config.rules),
      replayTiming: config.replayTiming,
      ...upstreamLimitsMs(config.upstreamTimeoutS, config.upstreamMaxTimeS),
      strict: MODE_TRAITS[config.mode].cassetteOnly && config.strict === true,
      onLog: (line, level) => log(line, level),
    });
  await checkCassette(config, cacheDir);
  const upstream = await openUpstream(config, log, allowedOrigins, auth);
  try {
    if (!stillWanted()) throw new Error('stopped while starting');
    const wanted = config.port === 0 && lastPort ? lastPort : config.port;
    const running = await start(wanted, upstream?.url).catch((error: NodeJS.ErrnoException) => {
      if (wanted !== config.port && error.code === 'EADDRINUSE') return start(config.port, upstream?.url); // the old port is taken
      if (error.code === 'EADDRINUSE')
        throw new ProxyStartError(
          `Port ${wanted} is in use (EADDRINUSE): choose another port, or leave it empty for any free one`,
          'port',
        );
      if (cacheDir && MODE_TRAITS[config.mode].records && /EACCES|EROFS|ENOTDIR|EEXIST/.test(error.code ?? ''))
        throw new ProxyStartError(`Cassette folder ${cacheDir} cannot be used: ${error.message}`, 'cassette');
      throw error;
    });
    return { running, upstream };
  } catch (error) {
    await upstream?.close();
    throw error;
  }
}

/** "record 127.0.0.1:3000", "proxy-only npx", "replay cassettes" */
export function defaultProxyName(config: ProxyConfig): string {
  const where = config.upstreamUrl
    ? new URL(config.upstreamUrl).host
    : config.upstreamCommand
      ? splitShellWords(config.upstreamCommand)[0]
      : (config.cacheDir ?? '').split(/[\\/]/).filter(Boolean).pop();
  return `${config.mode} ${where ?? ''}`.trim().slice(0, 100);
}
