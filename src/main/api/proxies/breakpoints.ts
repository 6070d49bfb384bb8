import {
  DEFAULT_BREAKPOINT_HOLD_S,
  type BreakpointRule,
  type BreakpointRuleInput,
  type BreakpointsState,
} from '../../../shared/breakpoints.js';
import type { Breakpoints } from '../../engine/pipeline/breakpoints.js';

/** What the hub needs of a proxy's breakpoints: the engine's own, or an attached process's (attach-breakpoints.ts). */
export type BreakpointRegistry = Pick<
  Breakpoints,
  'set' | 'paused' | 'has' | 'resume' | 'fail' | 'onChange' | 'releaseAll'
> & {
  /** how long a call is held before it resumes by itself (the engine's own registries; an attached process keeps its own) */
  timeoutMs?: number;
};

/**
 * The app's breakpoints over all proxies: the rules of each proxy (kept across its restarts and applied to the
 * running endpoint's registry) and the calls paused in any of them, published as one state on every change.
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

  set(proxyId: string, rules: BreakpointRuleInput[]): BreakpointsState {
    if (!this.exists(proxyId)) throw new Error(`proxyId: no proxy "${proxyId}"`);
    const registry = this.live.get(proxyId)?.registry;
    if (registry) this.rules.set(proxyId, registry.set(rules));
    else
      this.rules.set(
        proxyId,
        rules.map((r, i) => ({ id: `r-${proxyId}-${i}`, tool: r.tool, when: r.when })),
      );
    this.changed();
    return this.state();
  }

  resume(
    id: string,
    edits: { arguments?: Record<string, unknown>; result?: Record<string, unknown> },
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
    this.rules.set(proxyId, registry.set(this.rules.get(proxyId) ?? []));
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
