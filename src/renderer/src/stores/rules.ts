import { create } from 'zustand';
import type { CommandInput, CommandOutput } from '../../../shared/api.js';
import { api } from '../api/current.js';
import type { RulesFile } from '../../../shared/rules/schema.js';
import { emptyForm, ruleToForm, type ToolForm } from '../models/rules-form.js';

/** A tool of the proxy's merged list (upstream + overlay), as rules.get answers it. */
export type MergedToolView = CommandOutput<'rules.get'>['tools'][number];

interface RulesState {
  proxyId?: string;
  /** the merged tool list under the applied rules */
  tools: MergedToolView[];
  /** every tool seen for this proxy, so that tools hidden by passthrough:false stay selectable */
  seen: Record<string, MergedToolView>;
  /** the draft: one form per listed tool (in rules order), passthrough and instructions */
  forms: ToolForm[];
  passthrough: boolean;
  instructions?: string;
  selected?: string;
  /** the draft differs from what was loaded or applied */
  dirty: boolean;
  loading: boolean;
  applying: boolean;
  error?: string;
  /** answer of the last apply: how many clients were sent tools/list_changed */
  notified?: number;
  /** unapplied drafts of the other proxies, kept while another proxy's rules are edited */
  drafts: Record<string, Draft>;
  load(proxyId: string): Promise<void>;
  select(name: string | undefined): void;
  /** edits a tool's rule (creating it, from the upstream's defaults, when the tool had none) */
  edit(name: string, patch: Partial<ToolForm>): void;
  /** adds a rule for a tool (a synthetic one when the upstream has no such tool) */
  addRule(form: ToolForm): void;
  removeRule(name: string): void;
  setPassthrough(passthrough: boolean): void;
  apply(rules: RulesFile): Promise<void>;
}

type Draft = Pick<RulesState, 'forms' | 'passthrough' | 'instructions' | 'dirty' | 'selected'>;

function fromRules(rules: RulesFile | null): Pick<RulesState, 'forms' | 'passthrough' | 'instructions' | 'dirty'> {
  return {
    forms: (rules?.tools ?? []).map(ruleToForm),
    passthrough: rules?.passthrough ?? true,
    instructions: rules?.instructions,
    dirty: false,
  };
}

function remember(seen: Record<string, MergedToolView>, tools: MergedToolView[]): Record<string, MergedToolView> {
  // keyed by tool names from the server: no prototype, so `constructor` or `__proto__` is a tool like any other
  const next: Record<string, MergedToolView> = Object.assign(Object.create(null), seen);
  for (const tool of tools) next[tool.name] = tool;
  return next;
}

export const useRules = create<RulesState>()((set, get) => ({
  tools: [],
  seen: Object.create(null),
  forms: [],
  passthrough: true,
  dirty: false,
  loading: false,
  applying: false,
  drafts: {},
  async load(proxyId) {
    const before = get();
    const switching = proxyId !== before.proxyId;
    if (switching) {
      // an unapplied draft stays with its proxy: picking another proxy and coming back finds it again
      const drafts = { ...before.drafts };
      if (before.proxyId && before.dirty)
        drafts[before.proxyId] = {
          forms: before.forms,
          passthrough: before.passthrough,
          instructions: before.instructions,
          dirty: true,
          selected: before.selected,
        };
      const kept = drafts[proxyId];
      delete drafts[proxyId];
      set({
        tools: [],
        seen: Object.create(null),
        selected: undefined,
        notified: undefined,
        applying: false,
        ...fromRules(null),
        ...kept,
        drafts,
      });
    }
    set({ proxyId, loading: true, error: undefined });
    try {
      const answer = await api().call('rules.get', { id: proxyId });
      if (get().proxyId !== proxyId) return;
      // a reload keeps an unapplied draft; a fresh load (or a clean draft) takes the engine's rules
      const keepDraft = get().dirty;
      set((s) => ({
        tools: answer.tools,
        seen: remember(s.seen, answer.tools),
        loading: false,
        ...(keepDraft ? {} : fromRules(answer.rules)),
      }));
    } catch (error) {
      if (get().proxyId === proxyId) set({ loading: false, error: (error as Error).message });
    }
  },
  select: (selected) => set({ selected }),
  edit(name, patch) {
    set((s) => {
      const at = s.forms.findIndex((f) => f.name === name);
      const forms =
        at < 0
          ? [...s.forms, { ...emptyForm(name), ...patch }]
          : s.forms.map((f, i) => (i === at ? { ...f, ...patch } : f));
      return { forms, dirty: true, notified: undefined };
    });
  },
  addRule(form) {
    set((s) => ({
      forms: [...s.forms.filter((f) => f.name !== form.name), form],
      selected: form.name,
      dirty: true,
      notified: undefined,
    }));
  },
  removeRule(name) {
    set((s) => ({ forms: s.forms.filter((f) => f.name !== name), dirty: true, notified: undefined }));
  },
  setPassthrough: (passthrough) => set({ passthrough, dirty: true, notified: undefined }),
  async apply(rules) {
    const { proxyId } = get();
    if (!proxyId) return;
    set({ applying: true, error: undefined });
    try {
      const answer = await api().call('rules.set', { id: proxyId, rules });
      if (get().proxyId !== proxyId) return set({ applying: false }); // switched proxy meanwhile: drop the answer, not the flag
      set((s) => ({
        tools: answer.tools,
        seen: remember(s.seen, answer.tools),
        notified: answer.notified,
        applying: false,
        ...fromRules(answer.rules),
      }));
    } catch (error) {
      set({ applying: false, error: (error as Error).message });
    }
  },
}));

/** an inject template rendered against a recorded result (and its call's arguments) */
export const previewInject = (input: CommandInput<'rules.preview'>): Promise<CommandOutput<'rules.preview'>> =>
  api().call('rules.preview', input);
