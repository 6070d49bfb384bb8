import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { CommandOutputs, EventName, EventPayloads, ProxyConfig, ProxyInfo, TrafficEvent } from '../../shared/api.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { startProxy, type RunningProxy } from '../engine/proxy.js';
import { commandSpec } from '../engine/upstream/command.js';
import { openUpstream, type OpenedUpstream } from '../engine/upstream/open.js';
import { splitShellWords } from '../engine/transports/shell-words.js';
import { BreakpointHub } from './breakpoints.js';
import { Demo, type DemoHost } from './demo.js';
import { applyRules, engineRules, mergedTools, type RulesFile } from './proxy-rules.js';
import { TrafficBuffer } from './traffic-buffer.js';
import type { Log, LogLevel } from '../engine/log.js';

export interface AppControllerOptions {
  /** the app's own data folder (the demo's cassette lives in `<dataDir>/demo-cassette`) */
  dataDir: string;
  log?: Log;
  /** how many exchanges the timeline keeps (default 100,000; the oldest are dropped) */
  trafficCapacity?: number;
}

interface ManagedProxy {
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
}

const CASSETTE_MODES = new Set(['record', 'replay', 'hybrid']);
/** how often, at most, exchange counts alone cause a 'proxies' event */
const COUNTS_EVENT_MS = 500;

/**
 * The engine behind the UI: several proxies (each with its own upstream, mode, cassette, port and live-editable
 * rules), the timeline's traffic, and the demo. Plain Node; the API handlers (handlers.ts) are its only caller.
 */
export class AppController implements DemoHost {
  readonly dataDir: string;
  private readonly emitter = new EventEmitter<{ [E in EventName]: [EventPayloads[E]] }>();
  private readonly proxies = new Map<string, ManagedProxy>();
  private readonly traffic: TrafficBuffer;
  private readonly demo = new Demo(this);
  /** tools/call breakpoints of every proxy, and the calls paused in them */
  readonly breakpoints = new BreakpointHub(
    (state) => this.emitter.emit('breakpoints', state),
    (id) => this.proxies.has(id),
  );
  private readonly logLine: Log;
  private nextId = 1;
  private countsTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(options: AppControllerOptions) {
    this.dataDir = resolve(options.dataDir);
    this.traffic = new TrafficBuffer(options.trafficCapacity);
    this.logLine = options.log ?? ((line, level) => level === 'warn' && process.stderr.write(`mcp-rewind: ${line}\n`));
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
    const safe = (payload: EventPayloads[E]): void => {
      try {
        listener(payload);
      } catch (error) {
        this.log(`a ${event} listener failed: ${(error as Error).message}`, 'warn'); // never breaks the engine
      }
    };
    this.emitter.on(event, safe as never);
    return () => void this.emitter.off(event, safe as never);
  }

  log(line: string, level: LogLevel): void {
    this.logLine(line, level);
  }

  list(): ProxyInfo[] {
    return [...this.proxies.values()].map((p) => ({ ...p.info }));
  }

  find(id: string): ProxyInfo | undefined {
    const managed = this.proxies.get(id);
    return managed && { ...managed.info };
  }

  /** Adds a proxy and starts it. A proxy that cannot start is still listed, with state 'failed' and the reason. */
  async createProxy(config: ProxyConfig): Promise<ProxyInfo> {
    if (this.closed) throw new Error('the app is shutting down');
    if (CASSETTE_MODES.has(config.mode) && !config.cacheDir) throw new Error(`cacheDir: a cassette folder is required in ${config.mode} mode`);
    if (config.mode !== 'replay' && !config.upstreamUrl && !config.upstreamCommand) throw new Error(`upstreamUrl: an upstream server URL (or upstreamCommand) is required in ${config.mode} mode`);
    if (config.upstreamUrl && config.upstreamCommand) throw new Error('upstreamCommand: give either upstreamUrl or upstreamCommand, not both');
    const id = `p${this.nextId++}`;
    const name = config.name ?? `${config.mode} ${config.upstreamUrl ? new URL(config.upstreamUrl).host : config.upstreamCommand ? splitShellWords(config.upstreamCommand)[0] : config.cacheDir}`;
    const managed: ManagedProxy = { info: { id, name, config, state: 'stopped', exchanges: 0 }, queue: Promise.resolve() };
    this.proxies.set(id, managed);
    return this.startProxy(id);
  }

  startProxy(id: string): Promise<ProxyInfo> {
    return this.serially(id, (managed) => this.launch(id, managed));
  }

  stopProxy(id: string): Promise<ProxyInfo> {
    return this.serially(id, async (managed) => {
      await this.halt(managed);
      return { ...managed.info };
    });
  }

  removeProxy(id: string): Promise<{ removed: true }> {
    return this.serially(id, async (managed) => {
      await this.halt(managed, false);
      this.proxies.delete(id);
      this.breakpoints.forget(id);
      this.emitProxies();
      return { removed: true as const };
    });
  }

  trafficSnapshot(limit?: number): TrafficEvent[] {
    return this.traffic.snapshot(limit);
  }

  clearTraffic(): { cleared: number } {
    return { cleared: this.traffic.clear() };
  }

  async getRules(id: string): Promise<CommandOutputs['rules.get']> {
    const managed = this.managed(id);
    return { rules: managed.info.config.rules ?? null, tools: managed.running ? await mergedTools(managed.running) : [] };
  }

  /** Replaces a proxy's rules (kept for its next start too); a running proxy applies them at once. */
  async setRules(id: string, rules: RulesFile): Promise<CommandOutputs['rules.set']> {
    const managed = this.managed(id);
    const instructionsChanged = rules.instructions !== managed.info.config.rules?.instructions;
    managed.info.config = { ...managed.info.config, rules };
    const notified = managed.running ? applyRules(managed.running, rules) : 0;
    if (managed.running && instructionsChanged) this.log(`[${managed.info.name}] new instructions apply after a restart of the proxy`, 'info');
    this.emitProxies();
    return { rules, tools: managed.running ? await mergedTools(managed.running) : [], notified };
  }

  /** Times each key of a cassette folder was served from cache by the running proxies on it, since they started. */
  cassetteHits(dir: string): Map<string, number> {
    const folder = resolve(dir);
    const since = new Map<string, number>();
    for (const [id, p] of this.proxies) if (p.running?.store?.dir === folder && p.startedAt !== undefined) since.set(id, p.startedAt);
    const hits = new Map<string, number>();
    if (since.size === 0) return hits;
    this.traffic.forEach((event) => {
      const from = since.get(event.proxyId);
      if (event.cassette === 'hit' && from !== undefined && event.startedAt >= from) hits.set(event.key, (hits.get(event.key) ?? 0) + 1);
    });
    return hits;
  }

  startDemo(): Promise<CommandOutputs['demo.start']> {
    return this.demo.start();
  }

  /** Stops the demo agent, every proxy and the demo server. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.countsTimer);
    await this.demo.stopAgents();
    await Promise.all([...this.proxies.values()].map((managed) => this.halt(managed, false).catch(() => {})));
    await this.demo.close();
    this.emitter.removeAllListeners();
  }

  private managed(id: string): ManagedProxy {
    const managed = this.proxies.get(id);
    if (!managed) throw new Error(`id: no proxy "${id}"`);
    return managed;
  }

  private serially<T>(id: string, op: (managed: ManagedProxy) => Promise<T>): Promise<T> {
    const managed = this.managed(id);
    const run = managed.queue.then(() => op(managed));
    managed.queue = run.catch(() => {});
    return run;
  }

  private async launch(id: string, managed: ManagedProxy): Promise<ProxyInfo> {
    if (managed.running) return { ...managed.info };
    if (this.closed) throw new Error('the app is shutting down');
    const { config, name } = managed.info;
    // the upstream is opened as the CLI opens it (detect, bridge a stdio or legacy SSE server, probe); replay never
    // talks to a server
    if (config.mode !== 'replay' && !managed.upstream && (config.upstreamCommand || config.upstreamUrl)) {
      const spec = config.upstreamCommand ? commandSpec(config.upstreamCommand) : { url: config.upstreamUrl as string };
      try {
        managed.upstream = await openUpstream(spec, { log: (line, level) => this.log(`[${name}] ${line}`, level) });
      } catch (error) {
        managed.info = { ...managed.info, state: 'failed', url: undefined, error: (error as Error).message };
        this.log(`[${name}] cannot start: ${(error as Error).message}`, 'warn');
        this.emitProxies();
        return { ...managed.info };
      }
    }
    const upstreamUrl = config.mode === 'replay' ? undefined : managed.upstream?.url;
    const start = (port: number): Promise<RunningProxy> =>
      startProxy({
        mode: config.mode,
        upstreamUrl,
        cacheDir: config.cacheDir === undefined ? undefined : resolve(config.cacheDir),
        port,
        // always with rules, so that they can be edited live
        rules: engineRules(config.rules),
        onLog: (line, level) => this.log(`[${name}] ${line}`, level),
      });
    try {
      const wanted = config.port === 0 && managed.lastPort ? managed.lastPort : config.port;
      const running = await start(wanted).catch((error: NodeJS.ErrnoException) => {
        if (wanted !== config.port && error.code === 'EADDRINUSE') return start(config.port); // the old port is taken
        throw error;
      });
      managed.running = running;
      managed.startedAt = Date.now();
      managed.lastPort = running.port;
      running.events.on('exchange', (event) => this.record(id, managed, event));
      this.breakpoints.attach(id, running.breakpoints);
      managed.info = { ...managed.info, state: 'running', url: running.url, error: undefined };
    } catch (error) {
      managed.info = { ...managed.info, state: 'failed', url: undefined, error: (error as Error).message };
      this.log(`[${name}] cannot start: ${(error as Error).message}`, 'warn');
    }
    this.emitProxies();
    return { ...managed.info };
  }

  private async halt(managed: ManagedProxy, announce = true): Promise<void> {
    const running = managed.running;
    const upstream = managed.upstream;
    managed.running = undefined;
    managed.upstream = undefined;
    managed.startedAt = undefined;
    managed.info = { ...managed.info, state: 'stopped', url: undefined, error: undefined };
    if (running) {
      running.events.removeAllListeners('exchange');
      this.breakpoints.detach(managed.info.id); // paused calls go on, so the proxy can close
      await running.close();
    }
    await upstream?.close();
    if (announce) this.emitProxies();
  }

  private record(id: string, managed: ManagedProxy, event: ExchangeEvent): void {
    const tagged: TrafficEvent = { ...event, proxyId: id };
    this.traffic.push(tagged);
    managed.info.exchanges++;
    this.emitter.emit('traffic', tagged);
    this.countsTimer ??= setTimeout(() => {
      this.countsTimer = undefined;
      if (!this.closed) this.emitProxies();
    }, COUNTS_EVENT_MS).unref();
  }

  private emitProxies(): void {
    this.emitter.emit('proxies', this.list());
  }
}
