import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import {
  type CommandOutputs,
  type EventName,
  type EventPayloads,
  type ProxyInfo,
  type TrafficEvent,
} from '../../shared/api.js';
import { MODE_TRAITS } from '../../shared/modes.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { BreakpointHub } from './proxies/breakpoints.js';
import { EVERY_PROXY } from '../../shared/breakpoints.js';
import { Demo, type DemoHost } from './demo/demo.js';
import { InspectorVerbs } from './verbs/inspector-verbs.js';
import { AppTraffic } from './traffic/app-traffic.js';
import { settingsFile, type SettingsFile } from './files/settings-file.js';
import { AppInsight } from './insight/app-insight.js';
import type { Log, LogLevel } from '../engine/log.js';
import { haltManaged, noteUpstreamDown, type ManagedProxy, type ProxyHost } from './proxies/managed-proxy.js';
import { WorkspaceFile } from './files/workspace-file.js';
import { terminalSafe } from '../../shared/terminal-text.js';
import { reserveSeqs } from '../engine/pipeline/core/exchange.js';
import { AttachHub } from './intercept/attach-hub.js';
import { ProxyRegistry } from './proxies/proxy-registry.js';

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
export class AppController extends ProxyRegistry implements DemoHost {
  readonly dataDir: string;
  private readonly emitter = new EventEmitter<{ [E in EventName]: [EventPayloads[E]] }>();
  /** the timeline's exchanges (the UI API's traffic.* commands) */
  readonly traffic: AppTraffic;
  /** the protocol checks, security warnings and token counts of the timeline's exchanges (issue 26) */
  readonly insight: AppInsight;
  private readonly demo = new Demo(this);
  protected readonly settings: SettingsFile;
  private readonly offSettings: () => void;
  protected readonly workspace: WorkspaceFile;
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
  private countsTimer?: NodeJS.Timeout;
  private readonly browserOrigins: () => readonly string[];
  protected readonly openUrl?: (url: string) => void;

  constructor(options: AppControllerOptions) {
    super();
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
    this.host = this.proxyHost();
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

  /** what starting and stopping a proxy needs of the app (managed-proxy.ts) */
  private proxyHost(): ProxyHost {
    return {
      dataDir: this.dataDir,
      browserOrigins: this.browserOrigins,
      breakpoints: this.breakpoints,
      sessions: this.verbs.sessions,
      closing: () => this.closed,
      log: (line, level) => this.log(line, level),
      changed: () => this.emitProxies(),
      exchanged: (managed, event) => this.record(managed, event),
    };
  }

  protected readonly host: ProxyHost;

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

  protected emitProxies(): void {
    this.emitter.emit('proxies', this.list());
    this.saveWorkspace();
  }

  private saveWorkspace(): void {
    if (this.closed) return;
    this.workspace.save(this.savedProxies(), this.breakpoints.everyProxy());
  }
}
