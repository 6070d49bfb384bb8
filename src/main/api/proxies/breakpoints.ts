import {
  DEFAULT_BREAKPOINT_HOLD_S,
  EVERY_PROXY,
  breakpointInput,
  type BreakpointRule,
  type BreakpointRuleInput,
  type BreakpointsState,
} from '../../../shared/breakpoints.js';
import type { Breakpoints } from '../../engine/pipeline/breakpoints/breakpoints.js';

/** What the hub needs of a proxy's breakpoints: the engine's own, or an attached process's (attach-breakpoints.ts). */
export type BreakpointRegistry = Pick<
  Breakpoints,
  'set' | 'paused' | 'has' | 'resume' | 'fail' | 'onChange' | 'releaseAll'
> & {
  /** how long a call is held before it resumes by itself (the engine's own registries; an attached process keeps its own) */
  timeoutMs?: number;
};

let nextRule = 1;

/**
 * The app's breakpoints over all proxies: the rules of each proxy and those of every proxy (EVERY_PROXY), kept across
 * restarts and applied to each running endpoint's registry (its own, then every proxy's), and the calls paused in any
 * of them, published as one state on every change.
 */
export class BreakpointHub {
  private readonly rules = new Map<string, BreakpointRule[]>();
  private readonly live = new Map<string, { registry: BreakpointRegistry; off: () => void }>();
  private pending = false;
  /** the hold of every proxy's breakpoints (the `breakpointHoldS` setting) */
  private holdMs = DEFAULT_BREAKPOINT_HOLD_S * 1000;

  constructor(
    private readonly publish: (state: BreakpointsState) => void,
    private readonly exists: (proxyId: string) => boolean,
  ) {}

  state(): BreakpointsState {
    const rules: Record<string, BreakpointRule[]> = {};
    for (const [id, list] of this.rules) if (list.length > 0) rules[id] = list.map((r) => ({ ...r }));
    const paused = [...this.live].flatMap(([proxyId, { registry }]) =>
      registry.paused().map((call) => ({ ...call, proxyId })),
    );
    paused.sort((a, b) => a.since - b.since);
    return { rules, paused, holdS: this.holdMs / 1000 };
  }

  /** The hold of calls paused from now on, in every proxy (calls held now keep theirs). */
  setHold(ms: number): void {
    if (ms === this.holdMs) return;
    this.holdMs = ms;
    for (const { registry } of this.live.values()) if (registry.timeoutMs !== undefined) registry.timeoutMs = ms;
    this.changed();
  }

  /** Replaces the breakpoints of one proxy, or of every proxy (`proxyId` EVERY_PROXY). */
  set(proxyId: string, rules: BreakpointRuleInput[]): BreakpointsState {
    if (proxyId !== EVERY_PROXY && !this.exists(proxyId)) throw new Error(`proxyId: no proxy "${proxyId}"`);
    this.rules.set(
      proxyId,
      rules.map((r) => ({ ...breakpointInput(r), id: `r${nextRule++}` })),
    );
    if (proxyId === EVERY_PROXY) for (const id of this.live.keys()) this.apply(id);
    else this.apply(proxyId);
    this.changed();
    return this.state();
  }

  /** the rules of every proxy, as saved */
  everyProxy(): BreakpointRuleInput[] {
    return (this.rules.get(EVERY_PROXY) ?? []).map(breakpointInput);
  }

  /** a running proxy's registry gets its own rules and every proxy's */
  private apply(proxyId: string): void {
    const own = proxyId === EVERY_PROXY ? [] : (this.rules.get(proxyId) ?? []);
    this.live.get(proxyId)?.registry.set([...own, ...(this.rules.get(EVERY_PROXY) ?? [])]);
  }

  resume(
    id: string,
    edits: { arguments?: Record<string, unknown>; params?: Record<string, unknown>; result?: Record<string, unknown> },
  ): BreakpointsState {
    this.owner(id).resume(id, edits);
    return this.state();
  }

  fail(id: string, message?: string): BreakpointsState {
    this.owner(id).fail(id, message);
    return this.state();
  }

  /** A proxy started: its registry gets the proxy's rules, and its pauses are published. */
  attach(proxyId: string, registry: BreakpointRegistry | undefined): void {
    this.detach(proxyId);
    if (!registry) return;
    const off = registry.onChange(() => this.changed());
    if (registry.timeoutMs !== undefined) registry.timeoutMs = this.holdMs;
    this.live.set(proxyId, { registry, off });
    this.apply(proxyId);
  }

  /** A proxy stops: its paused calls go on unchanged. */
  detach(proxyId: string): void {
    const live = this.live.get(proxyId);
    if (!live) return;
    this.live.delete(proxyId);
    live.off();
    live.registry.releaseAll();
    this.changed();
  }

  /** A proxy is removed: its rules are forgotten. */
  forget(proxyId: string): void {
    if (proxyId === EVERY_PROXY) return;
    this.detach(proxyId);
    if (this.rules.delete(proxyId)) this.changed();
  }

  private owner(id: string): BreakpointRegistry {
    for (const { registry } of this.live.values()) if (registry.has(id)) return registry;
    throw new Error(`id: no call paused at "${id}" (resumed, failed or timed out already?)`);
  }

  /** one event per tick, however many changes */
  private changed(): void {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.publish(this.state());
    });
  }
}
