import { EventEmitter } from 'node:events';
import type { AttachControl } from '../../../shared/attach.js';
import {
  breakpointInput,
  type BreakpointRule,
  type BreakpointRuleInput,
  type PausedCall,
} from '../../../shared/breakpoints.js';
import type { BreakpointRegistry } from '../proxies/breakpoints.js';

/**
 * The breakpoints of an attached server, as the app's BreakpointHub sees them: the rules are the app's (sent to its
 * processes), the paused calls are what each process reports. A paused call's id is the process's own, prefixed
 * with the process, so two processes (or a process and a proxy of the app) never share one.
 */
export class AttachBreakpoints implements BreakpointRegistry {
  private rules: BreakpointRule[] = [];
  private readonly pausedBy = new Map<string, PausedCall[]>();
  private readonly events = new EventEmitter<{ change: [] }>();
  private nextRule = 1;

  /** `send`: a control message to one process, or to every process of the server (`attachId` undefined) */
  constructor(
    private readonly key: string,
    private readonly send: (control: AttachControl, attachId?: string) => void,
  ) {}

  set(rules: ReadonlyArray<BreakpointRuleInput & { id?: string }>): BreakpointRule[] {
    this.rules = rules.map((r) => ({ ...breakpointInput(r), id: r.id ?? `${this.key}-r${this.nextRule++}` }));
    this.send({ breakpoints: this.inputs() });
    this.events.emit('change');
    return this.rules.map((r) => ({ ...r }));
  }

  inputs(): BreakpointRuleInput[] {
    return this.rules.map(breakpointInput);
  }

  paused(): PausedCall[] {
    return [...this.pausedBy.values()].flat();
  }

  has(id: string): boolean {
    return this.paused().some((c) => c.id === id);
  }

  /** what a process reports as paused now */
  report(attachId: string, paused: PausedCall[]): void {
    this.pausedBy.set(
      attachId,
      paused.map((c) => ({ ...c, id: `${attachId}:${c.id}` })),
    );
    this.events.emit('change');
  }

  /** a process went away: its calls went with it */
  gone(attachId: string): void {
    if (this.pausedBy.delete(attachId)) this.events.emit('change');
  }

  resume(id: string, edits: { arguments?: unknown; result?: unknown } = {}): void {
    const { attachId, own } = this.split(id);
    this.send(
      { resume: { id: own, ...(edits as { arguments?: Record<string, unknown>; result?: Record<string, unknown> }) } },
      attachId,
    );
    this.drop(attachId, id);
  }

  fail(id: string, message?: string): void {
    const { attachId, own } = this.split(id);
    this.send({ fail: { id: own, message } }, attachId);
    this.drop(attachId, id);
  }

  releaseAll(): void {
    this.send({ breakpoints: [] });
    for (const call of this.paused()) this.resume(call.id);
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => void this.events.off('change', listener);
  }

  private split(id: string): { attachId: string; own: string } {
    if (!this.has(id)) throw new Error(`id: no call paused at "${id}" (resumed, failed or timed out already?)`);
    const at = id.indexOf(':');
    return { attachId: id.slice(0, at), own: id.slice(at + 1) };
  }

  private drop(attachId: string, id: string): void {
    this.pausedBy.set(
      attachId,
      (this.pausedBy.get(attachId) ?? []).filter((c) => c.id !== id),
    );
    this.events.emit('change');
  }
}
