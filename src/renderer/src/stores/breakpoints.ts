import { create } from 'zustand';
import { api } from '../api/current.js';
import {
  breakpointInput,
  breakpointKey,
  type BreakpointRuleInput,
  type BreakpointsState,
} from '../../../shared/breakpoints.js';

interface BreakpointsStore extends BreakpointsState {
  loaded: boolean;
  error?: string;
  /** replaces one proxy's breakpoints (EVERY_PROXY: those of every proxy) */
  setRules(proxyId: string, rules: BreakpointRuleInput[]): Promise<void>;
  add(proxyId: string, rule: BreakpointRuleInput): Promise<void>;
  remove(proxyId: string, ruleId: string): Promise<void>;
  /** rejects with the engine's message (bad arguments / result, call gone) */
  resume(
    id: string,
    edits?: { arguments?: Record<string, unknown>; params?: Record<string, unknown>; result?: Record<string, unknown> },
  ): Promise<void>;
  fail(id: string, message?: string): Promise<void>;
}

export const useBreakpoints = create<BreakpointsStore>()((set, get) => {
  const apply = (state: BreakpointsState): void =>
    set({ rules: state.rules, paused: state.paused, holdS: state.holdS, loaded: true });
  return {
    rules: {},
    paused: [],
    loaded: false,
    async setRules(proxyId, rules) {
      apply(await api().call('breakpoints.set', { proxyId, rules }));
    },
    async add(proxyId, rule) {
      const current = (get().rules[proxyId] ?? []).map(breakpointInput);
      const key = breakpointKey(rule);
      if (current.some((r) => breakpointKey(r) === key)) return;
      await get().setRules(proxyId, [...current, rule]);
    },
    async remove(proxyId, ruleId) {
      const rest = (get().rules[proxyId] ?? []).filter((r) => r.id !== ruleId).map(breakpointInput);
      await get().setRules(proxyId, rest);
    },
    async resume(id, edits = {}) {
      apply(await api().call('breakpoints.resume', { id, ...edits }));
    },
    async fail(id, message) {
      apply(await api().call('breakpoints.fail', { id, ...(message ? { message } : {}) }));
    },
  };
});

/** Reloads the state from the engine (at start and after a reconnect). */
export async function syncBreakpoints(): Promise<void> {
  try {
    const state = await api().call('breakpoints.list', {});
    useBreakpoints.setState({ ...state, loaded: true, error: undefined });
  } catch (error) {
    useBreakpoints.setState({ error: (error as Error).message });
  }
}

/** Feeds the store from the api: the state now, then every `breakpoints` event (the whole state). */
export function attachBreakpoints(): () => void {
  const off = api().on('breakpoints', (state) =>
    useBreakpoints.setState({ rules: state.rules, paused: state.paused, holdS: state.holdS, loaded: true }),
  );
  void syncBreakpoints();
  return off;
}
