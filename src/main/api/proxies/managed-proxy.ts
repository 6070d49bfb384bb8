import { breakpointInput } from '../../../shared/breakpoints.js';
import type { ProxyInfo } from '../../../shared/api.js';
import { ErrorCode } from '../../../shared/jsonrpc.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import type { Log } from '../../engine/log.js';
import type { RunningProxy } from '../../engine/proxy.js';
import type { OpenedUpstream } from '../../engine/upstream/open.js';
import type { UpstreamSignIn } from '../../engine/upstream/oauth/sign-in.js';
import type { SavedProxy } from '../files/workspace-file.js';
import type { AppSessions } from '../verbs/app-sessions.js';
import type { BreakpointHub } from './breakpoints.js';
import { launchProxy } from './proxy-launch.js';
import { followSignIn, proxySignIn } from './proxy-sign-in.js';
import { ProxyStartError } from './upstream-check.js';

/** One of the app's proxies: what the UI lists, and the running instance behind it. */
export interface ManagedProxy {
  info: ProxyInfo;
  running?: RunningProxy;
  /** the upstream while running: detected, bridged (stdio, legacy SSE) and probed as the CLI does */
  upstream?: OpenedUpstream;
  /** when the running instance started (hits count from here) */
  startedAt?: number;
  /** the port the last run got, tried again on restart when the config asks for any port */
  lastPort?: number;
  /** start/stop/remove of one proxy run one after another */
  queue: Promise<unknown>;
  /** its upstream's OAuth sign-in while running (a URL upstream), and whether the upstream asked for one */
  signIn?: UpstreamSignIn;
  needsSignIn?: boolean;
  offSignIn?: () => void;
}

/** What starting and stopping a proxy needs of the app. */
export interface ProxyHost {
  readonly dataDir: string;
  readonly browserOrigins: () => readonly string[];
  readonly breakpoints: BreakpointHub;
  /** the app's own MCP sessions, dropped with the proxy they talk to */
  readonly sessions: AppSessions;
  /** the app is shutting down */
  closing(): boolean;
  log: Log;
  /** the proxy's state changed: tell the UI, keep the workspace */
  changed(): void;
  /** a finished exchange of the proxy */
  exchanged(managed: ManagedProxy, event: ExchangeEvent): void;
}

/** A proxy the app knows, not running. */
export function managedProxy(info: ProxyInfo, lastPort?: number): ManagedProxy {
  return { info, ...(lastPort !== undefined ? { lastPort } : {}), queue: Promise.resolve() };
}

/**
 * Starts a proxy (unless it runs): running means it can serve — the upstream answered initialize (live modes), the
 * cassette exists (replay); one that cannot start is listed as failed, with the reason.
 */
export async function launchManaged(managed: ManagedProxy, host: ProxyHost): Promise<ProxyInfo> {
  if (managed.running) return { ...managed.info };
  if (host.closing()) throw new Error('the app is shutting down');
  const { config, name, id } = managed.info;
  const log: Log = (line, level) => host.log(`[${name}] ${line}`, level);
  managed.info = { ...managed.info, ...NOT_RUNNING, state: 'starting' };
  host.changed();
  try {
    const stillWanted = (): boolean => !host.closing() && managed.info.state === 'starting';
    const signIn = proxySignIn(config, host.dataDir, log);
    const context = { lastPort: managed.lastPort, browserOrigins: host.browserOrigins, auth: signIn };
    const { running, upstream } = await launchProxy(config, context, log, stillWanted);
    managed.running = running;
    managed.upstream = upstream;
    managed.signIn = upstream?.bridge ? undefined : signIn;
    managed.needsSignIn = upstream?.needsSignIn === true;
    managed.startedAt = Date.now();
    managed.lastPort = running.port;
    running.events.on('exchange', (event) => host.exchanged(managed, event));
    host.breakpoints.attach(id, running.breakpoints);
    managed.info = { ...managed.info, state: 'running', url: running.url, error: undefined, failure: undefined };
    followSignIn(managed, () => host.changed());
  } catch (error) {
    if (managed.info.state === 'starting') {
      const failure = error instanceof ProxyStartError ? error.failure : 'other';
      managed.info = { ...managed.info, state: 'failed', url: undefined, error: (error as Error).message, failure };
      host.log(`[${name}] cannot start: ${(error as Error).message}`, 'warn');
    }
  }
  host.changed();
  return { ...managed.info };
}

const NOT_RUNNING = {
  url: undefined,
  error: undefined,
  failure: undefined,
  upstreamDown: undefined,
} as const satisfies Partial<ProxyInfo>;

/** Stops a proxy and its upstream; its paused calls go on, so that it can close. */
export async function haltManaged(managed: ManagedProxy, host: ProxyHost, announce = true): Promise<void> {
  const { running, upstream } = managed;
  managed.running = undefined;
  managed.upstream = undefined;
  managed.startedAt = undefined;
  managed.offSignIn?.();
  managed.signIn = managed.offSignIn = undefined;
  managed.info = { ...managed.info, ...NOT_RUNNING, state: 'stopped', signIn: undefined };
  host.sessions.drop(managed.info.id);
  if (running) {
    running.events.removeAllListeners('exchange');
    host.breakpoints.detach(managed.info.id);
    await running.close();
  }
  await upstream?.close();
  if (announce) host.changed();
}

/**
 * A running proxy whose upstream stopped answering says so (and stops saying so once it answers again): answers
 * whether that changed with this exchange.
 */
export function noteUpstreamDown(managed: ManagedProxy, event: ExchangeEvent): boolean {
  const error = event.response && 'error' in event.response ? event.response.error : undefined;
  const down = error?.code === ErrorCode.UpstreamUnavailable ? error.message.replace(/^mcp-rewind: /, '') : undefined;
  if (down === undefined && (event.source !== 'upstream' || managed.info.upstreamDown === undefined)) return false;
  const changed = managed.info.upstreamDown !== down;
  managed.info = { ...managed.info, upstreamDown: down };
  return changed;
}

/** A proxy of the last run, as workspace.json kept it (not running yet). */
export function fromSaved(p: SavedProxy): ManagedProxy {
  const info: ProxyInfo = {
    id: p.id,
    name: p.name,
    config: p.config,
    state: 'stopped',
    exchanges: 0,
    ...(p.demo ? { demo: true } : {}),
  };
  return { info, lastPort: p.lastPort, queue: Promise.resolve() };
}

/** The proxies as workspace.json keeps them, with their breakpoint rules. */
export function toSaved(
  proxies: Iterable<ManagedProxy>,
  rules: ReturnType<BreakpointHub['state']>['rules'],
): SavedProxy[] {
  return [...proxies].map(({ info, lastPort }) => ({
    id: info.id,
    name: info.name,
    config: info.config,
    running: info.state !== 'stopped',
    ...(lastPort ? { lastPort } : {}),
    ...(info.demo ? { demo: true } : {}),
    breakpoints: (rules[info.id] ?? []).map(breakpointInput),
  }));
}
