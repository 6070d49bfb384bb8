import { resolve } from 'node:path';
import type { CommandOutputs, ProxyConfig, ProxyInfo } from '../../../shared/api.js';
import { MODE_TRAITS } from '../../../shared/modes.js';
import { checkProxyConfig } from '../../../shared/proxy-config.js';
import type { LogLevel } from '../../engine/log.js';
import type { SettingsFile } from '../files/settings-file.js';
import type { SavedProxy, WorkspaceFile } from '../files/workspace-file.js';
import type { AppTraffic } from '../traffic/app-traffic.js';
import type { BreakpointHub } from './breakpoints.js';
import {
  fromSaved,
  haltManaged,
  launchManaged,
  managedProxy,
  toSaved,
  uniqueName,
  type ManagedProxy,
  type ProxyHost,
} from './managed-proxy.js';
import { defaultProxyName } from './proxy-launch.js';
import type { RulesFile } from '../../../shared/rules/schema.js';
import { applyRules, mergedTools } from './proxy-rules.js';
import { beginSignIn, proxySignIn } from './proxy-sign-in.js';

/**
 * The app's own proxies, as AppController (app-controller.ts) manages them: added, started, stopped, removed one at a
 * time each, their rules and sign-in, kept in the workspace file and restored from it. The app's part (its settings,
 * workspace file, breakpoints, timeline, events) is what a subclass provides.
 */
export abstract class ProxyRegistry {
  protected readonly proxies = new Map<string, ManagedProxy>();
  private nextId = 1;
  protected closed = false;
  abstract readonly dataDir: string;
  abstract readonly breakpoints: BreakpointHub;
  abstract readonly traffic: AppTraffic;
  protected abstract readonly settings: SettingsFile;
  protected abstract readonly workspace: WorkspaceFile;
  protected abstract readonly host: ProxyHost;
  protected abstract readonly openUrl?: (url: string) => void;
  abstract log(line: string, level: LogLevel): void;
  protected abstract emitProxies(): void;

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
    const name = config.name?.trim() || uniqueName(defaultProxyName(config), taken);
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

  protected managed(id: string): ManagedProxy {
    const managed = this.proxies.get(id);
    if (!managed) throw new Error(`id: no proxy "${id}"`);
    return managed;
  }

  protected serially<T>(id: string, op: (managed: ManagedProxy) => Promise<T>): Promise<T> {
    const managed = this.managed(id);
    const run = managed.queue.then(() => op(managed));
    managed.queue = run.catch(() => {});
    return run;
  }

  /** Proxies of the last run: listed at once, and those that ran are started again (each on its old port if free). */
  protected restore(saved: SavedProxy[]): void {
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

  /** the proxies as workspace.json keeps them */
  protected savedProxies(): SavedProxy[] {
    return toSaved(this.proxies.values(), this.breakpoints.state().rules);
  }
}
