import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import {
  type CommandOutputs,
  type EventName,
  type EventPayloads,
  type ProxyConfig,
  type ProxyInfo,
  type TrafficEvent,
} from '../../shared/api.js';
import { MODE_TRAITS } from '../../shared/modes.js';
import { checkProxyConfig } from '../../shared/proxy-config.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { BreakpointHub } from './proxies/breakpoints.js';
import { EVERY_PROXY } from '../../shared/breakpoints.js';
import { Demo, type DemoHost } from './demo/demo.js';
import { InspectorVerbs } from './verbs/inspector-verbs.js';
import { AppTraffic } from './traffic/app-traffic.js';
import { applyRules, mergedTools, type RulesFile } from './proxies/proxy-rules.js';
import { settingsFile, type SettingsFile } from './files/settings-file.js';
import { AppInsight } from './insight/app-insight.js';
import type { Log, LogLevel } from '../engine/log.js';
import { defaultProxyName } from './proxies/proxy-launch.js';
import {
  fromSaved,
  haltManaged,
  launchManaged,
  managedProxy,
  noteUpstreamDown,
  toSaved,
  type ManagedProxy,
  type ProxyHost,
} from './proxies/managed-proxy.js';
import { WorkspaceFile, type SavedProxy } from './files/workspace-file.js';
import { terminalSafe } from '../../shared/terminal-text.js';
import { beginSignIn, proxySignIn } from './proxies/proxy-sign-in.js';
import { reserveSeqs } from '../engine/pipeline/exchange.js';
import { AttachHub } from './intercept/attach-hub.js';

export interface AppControllerOptions {
  /** the app's own data folder (the demo's cassette lives in `<dataDir>/demo-cassette`) */
  dataDir: string;
  log?: Log;
  /** how many exchanges the timeline keeps (default 100,000; the oldest are dropped) */
  trafficCapacity?: number;
  /** the settings (default cassette folder, restore at start); default: the data folder's one settings file */
  settings?: SettingsFile;
  /** the app's version (the clientInfo of its own MCP sessions, HAR's creator) */
  version?: string;
  /**
   * browser origins every proxy admits besides its own "Browser origins" (read per request): the browser UI's own
   * page and `mcp-rewind ui --allowed-origin`. Any other page that carries an Origin is refused (403).
   */
  browserOrigins?: () => readonly string[];
  /** opens a sign-in page in the system browser (the desktop app); without it the UI opens the page itself */
  openUrl?: (url: string) => void;
}

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
  /** the timeline's exchanges (the UI API's traffic.* commands) */
  readonly traffic: AppTraffic;
  /** the protocol checks, security warnings and token counts of the timeline's exchanges (issue 26) */
  readonly insight: AppInsight;
  private readonly demo = new Demo(this);
  private readonly settings: SettingsFile;
  private readonly offSettings: () => void;
  private readonly workspace: WorkspaceFile;
  /** tools/call breakpoints of every proxy, and the calls paused in them */
  readonly breakpoints = new BreakpointHub(
    (state) => {
      this.emitter.emit('breakpoints', state);
      this.saveWorkspace();
      this.attached?.saveBreakpoints();
    },
    (id) => this.proxies.has(id) || this.attached.has(id),
  );
  /** servers whose mcp-rewind an agent started (wrapped by Intercept), attached to the app */
  readonly attached: AttachHub;
  private readonly logLine: Log;
  /** resend, compose, pins and notes, files opened into the timeline, saving it */
  readonly verbs: InspectorVerbs;
  private nextId = 1;
  private countsTimer?: NodeJS.Timeout;
  private closed = false;
  private readonly browserOrigins: () => readonly string[];
  private readonly openUrl?: (url: string) => void;

  constructor(options: AppControllerOptions) {
    this.dataDir = resolve(options.dataDir);
    this.openUrl = options.openUrl;
    this.browserOrigins = options.browserOrigins ?? (() => []);
    this.traffic = new AppTraffic(options.trafficCapacity, (seq) => this.verbs.timeline.keeps(seq));
    this.insight = new AppInsight(this.traffic, {
      emit: (batch) => this.emitter.emit('insight', batch),
      changed: () => this.countsSoon(),
      nameOf: (id) =>
        this.proxies.get(id)?.info.name ?? this.verbs.timeline.listSources().find((s) => s.id === id)?.name,
      log: (line, level) => this.log(line, level),
    });
    this.logLine =
      options.log ?? ((line, level) => level === 'warn' && process.stderr.write(terminalSafe(`mcp-rewind: ${line}\n`)));
    this.settings = options.settings ?? settingsFile(this.dataDir, (line) => this.log(line, 'warn'));
    this.breakpoints.setHold(this.settings.get().settings.breakpointHoldS * 1000);
    this.offSettings = this.settings.on((info) => this.breakpoints.setHold(info.settings.breakpointHoldS * 1000));
    this.workspace = new WorkspaceFile(this.dataDir, (line) => this.log(line, 'warn'));
    this.verbs = new InspectorVerbs({
      dataDir: this.dataDir,
      version: options.version ?? '0',
      ring: this.traffic.ring(
        (e, kept) => this.insight.observe(e, kept),
        (kept) => this.emitter.emit('traffic', kept),
      ),
      preserveLog: () => this.settings.get().settings.preserveLog,
      proxyUrl: (id) => this.proxies.get(id)?.running?.url,
      cassetteOf: (id) => {
        const managed = this.proxies.get(id);
        if (!managed) throw new Error(`proxyId: no proxy "${id}"`);
        return MODE_TRAITS[managed.info.config.mode].usesCassette
          ? { store: managed.running?.store, dir: managed.info.config.cacheDir }
          : undefined;
      },
      emit: {
        annotations: (all) => this.emitter.emit('annotations', all),
        sources: (all) => this.emitter.emit('sources', all),
        appRequests: (all) => this.emitter.emit('appRequests', all),
      },
      log: (line, level) => this.log(line, level),
    });
    this.host = {
      dataDir: this.dataDir,
      browserOrigins: this.browserOrigins,
      breakpoints: this.breakpoints,
      sessions: this.verbs.sessions,
      closing: () => this.closed,
      log: (line, level) => this.log(line, level),
      changed: () => this.emitProxies(),
      exchanged: (managed, event) => this.record(managed, event),
    };
    this.attached = new AttachHub(this.dataDir, {
      publish: (id, event) => this.publish(id, event),
      changed: () => this.countsSoon(),
      breakpoints: this.breakpoints,
      log: (line, level) => this.log(line, level),
    });
    this.attached.restore();
    void this.verbs.timeline.restore();
    if (this.settings.get().settings.restoreWorkspace) {
      this.restore(this.workspace.load());
      const everyProxy = this.workspace.everyProxyBreakpoints();
      if (everyProxy.length) this.breakpoints.set(EVERY_PROXY, everyProxy);
    }
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
    const own = [...this.proxies.values()].map((p) => {
      const problems = this.insight.problemCounts(p.info.id);
      return problems ? { ...p.info, problems } : { ...p.info };
    });
    return [...own, ...this.attached.list()];
  }

  find(id: string): ProxyInfo | undefined {
    const managed = this.proxies.get(id);
    return managed ? { ...managed.info } : this.attached.list().find((p) => p.id === id);
  }

  /**
   * Adds a proxy and starts it. Problems with the settings themselves are refused, naming the form's fields; a
   * proxy that cannot start (upstream unreachable, cassette missing, port taken) is listed as failed, with the reason.
   * An empty cassette folder means the default one (Settings); a name is unique (a generated one gets a number).
   * The proxy is kept for the next start before it starts; when that cannot be written (a full disk), it is not added
   * and the error says why.
   */
  async createProxy(input: ProxyConfig, options: { demo?: boolean } = {}): Promise<ProxyInfo> {
    if (this.closed) throw new Error('the app is shutting down');
    let config = checkProxyConfig(input);
    if (MODE_TRAITS[config.mode].usesCassette && !config.cacheDir)
      config = { ...config, cacheDir: this.settings.get().settings.defaultCacheDir };
    const taken = (name: string): boolean =>
      [...this.proxies.values()].some((p) => p.info.name.toLowerCase() === name.toLowerCase());
    const name = config.name?.trim() || this.uniqueName(defaultProxyName(config), taken);
    if (config.name && taken(name))
      throw new Error(`Name: a proxy named "${name}" exists already; choose another name`);
    const id = `p${this.nextId++}`;
    const managed = managedProxy({
      id,
      name,
      config,
      state: 'stopped',
      exchanges: 0,
      ...(options.demo ? { demo: true } : {}),
    });
    this.proxies.set(id, managed);
    try {
      await this.workspace.saveNow(this.savedProxies(), this.breakpoints.everyProxy());
    } catch (error) {
      this.proxies.delete(id);
      throw new Error(`the proxy was not added: ${(error as Error).message}`, { cause: error });
    }
    return this.startProxy(id);
  }

  /** The demo's proxy follows the demo server, whose port changes with each run of the app. */
  async setUpstreamUrl(id: string, upstreamUrl: string): Promise<void> {
    const managed = this.managed(id);
    if (managed.info.config.upstreamUrl === upstreamUrl) return;
    await this.stopProxy(id);
    managed.info = { ...managed.info, config: { ...managed.info.config, upstreamUrl } };
    this.emitProxies();
  }

  startProxy(id: string): Promise<ProxyInfo> {
    return this.serially(id, (managed) => launchManaged(managed, this.host));
  }

  stopProxy(id: string): Promise<ProxyInfo> {
    return this.serially(id, async (managed) => {
      await haltManaged(managed, this.host);
      return { ...managed.info };
    });
  }

  removeProxy(id: string): Promise<{ removed: true }> {
    return this.serially(id, async (managed) => {
      await haltManaged(managed, this.host, false);
      this.proxies.delete(id);
      this.breakpoints.forget(id);
      this.emitProxies();
      return { removed: true as const };
    });
  }

  async getRules(id: string): Promise<CommandOutputs['rules.get']> {
    const managed = this.managed(id);
    return {
      rules: managed.info.config.rules ?? null,
      tools: managed.running ? await mergedTools(managed.running) : [],
    };
  }

  /** Replaces a proxy's rules (kept for its next start too); a running proxy applies them at once. */
  async setRules(id: string, rules: RulesFile): Promise<CommandOutputs['rules.set']> {
    const managed = this.managed(id);
    const instructionsChanged = rules.instructions !== managed.info.config.rules?.instructions;
    managed.info.config = { ...managed.info.config, rules };
    const notified = managed.running ? applyRules(managed.running, rules) : 0;
    if (managed.running && instructionsChanged)
      this.log(`[${managed.info.name}] new instructions apply after a restart of the proxy`, 'info');
    this.emitProxies();
    return { rules, tools: managed.running ? await mergedTools(managed.running) : [], notified };
  }

  /** Starts (or joins) the sign-in of a proxy's upstream; answers the page to open (the desktop app opens it itself). */
  signIn(id: string): Promise<CommandOutputs['proxies.signIn']> {
    const managed = this.managed(id);
    return beginSignIn(managed.signIn, managed.info.name, this.openUrl);
  }

  /** Forgets the tokens of a proxy's upstream: its next request asks for a sign-in again. */
  async signOut(id: string): Promise<ProxyInfo> {
    const managed = this.managed(id);
    await (
      managed.signIn ?? proxySignIn(managed.info.config, this.dataDir, (line, level) => this.log(line, level))
    )?.signOut();
    return { ...managed.info };
  }

  /** Times each key of a cassette folder was served from cache by the running proxies on it, since they started. */
  cassetteHits(dir: string): Map<string, number> {
    const folder = resolve(dir);
    const since = new Map<string, number>();
    for (const [id, p] of this.proxies)
      if (p.running?.store?.dir === folder && p.startedAt !== undefined) since.set(id, p.startedAt);
    return this.traffic.hits(since);
  }

  startDemo(): Promise<CommandOutputs['demo.start']> {
    return this.demo.start();
  }

  /** Stops the demo agent, every proxy and the demo server. */
  async close(): Promise<void> {
    this.offSettings();
    if (this.closed) return;
    this.saveWorkspace(); // as it is now: the proxies that run are started again next time
    this.closed = true;
    clearTimeout(this.countsTimer);
    this.insight.close();
    this.traffic.forgetClear();
    await this.demo.stopAgents();
    await Promise.all(
      [...this.proxies.values()].map((managed) => haltManaged(managed, this.host, false).catch(() => {})),
    );
    await this.demo.close();
    await this.attached.shutdown();
    await this.verbs.close();
    await this.workspace.flush();
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

  /** what starting and stopping a proxy needs of the app (managed-proxy.ts) */
  private readonly host: ProxyHost;

  private record(managed: ManagedProxy, event: ExchangeEvent): void {
    const id = managed.info.id;
    const tagged: TrafficEvent = { ...event, seq: this.verbs.timeline.numberOf(event.seq), proxyId: id }; // never reused across restarts
    this.verbs.sessions.tag(tagged); // the app's own session: what it sent, and from which exchange
    const kept = this.traffic.buffer.push(tagged); // large bodies truncated: what the view gets
    this.insight.observe(tagged, kept); // checked a moment later, off the proxy's path: the `insight` event follows
    managed.info.exchanges++;
    if (noteUpstreamDown(managed, event)) this.emitter.emit('proxies', this.list());
    this.emitter.emit('traffic', kept);
    this.countsSoon();
  }

  /** An exchange of an attached server (numbered here: its process numbers its own exchanges from 1). */
  private publish(id: string, event: ExchangeEvent): void {
    const tagged: TrafficEvent = { ...event, seq: this.verbs.timeline.numberOf(reserveSeqs(1)), proxyId: id };
    const kept = this.traffic.buffer.push(tagged);
    this.insight.observe(tagged, kept); // attached traffic is checked like any other
    this.emitter.emit('traffic', kept);
  }

  private countsSoon(): void {
    this.countsTimer ??= setTimeout(() => {
      this.countsTimer = undefined;
      if (!this.closed) this.emitter.emit('proxies', this.list()); // counts are not saved: no workspace write
    }, COUNTS_EVENT_MS).unref();
  }

  private emitProxies(): void {
    this.emitter.emit('proxies', this.list());
    this.saveWorkspace();
  }

  private uniqueName(base: string, taken: (name: string) => boolean): string {
    let name = base;
    for (let n = 2; taken(name); n++) name = `${base} ${n}`;
    return name;
  }

  /** Proxies of the last run: listed at once, and those that ran are started again (each on its old port if free). */
  private restore(saved: SavedProxy[]): void {
    for (const p of saved) {
      if (this.proxies.has(p.id)) continue;
      this.proxies.set(p.id, fromSaved(p));
      if (p.breakpoints.length) this.breakpoints.set(p.id, p.breakpoints);
      const n = /^p(\d+)$/.exec(p.id)?.[1];
      if (n) this.nextId = Math.max(this.nextId, Number(n) + 1);
    }
    // the demo's server is not running yet: its proxy starts with the next Run demo
    for (const p of saved) if (p.running && !p.demo) void this.startProxy(p.id).catch(() => {});
  }

  private saveWorkspace(): void {
    if (this.closed) return;
    this.workspace.save(this.savedProxies(), this.breakpoints.everyProxy());
  }

  /** the proxies as workspace.json keeps them */
  private savedProxies(): SavedProxy[] {
    return toSaved(this.proxies.values(), this.breakpoints.state().rules);
  }
}
