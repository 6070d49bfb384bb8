import type { GateRule, Level } from './levels.js';

/**
 * The rules of `mcp-rewind diff`: each change between two recordings is one finding of one of these. A tool change
 * rated `breaking` is an error, one rated `compatible` a note; a recorded answer that changed, or a request recorded
 * in A and not in B, is a warning (the server drifted, nothing says a client breaks). Pure data.
 */
export const DIFF_RULES = {
  'diff.tool-removed': { level: 'error', title: 'a tool listed in A is gone from B' },
  'diff.input-narrowed': { level: 'error', title: 'an inputSchema accepts less (callers break)' },
  'diff.output-widened': { level: 'error', title: 'an outputSchema promises less (readers break)' },
  'diff.schema-unclear': { level: 'error', title: 'a schema keyword changed that cannot be told narrower or wider' },
  'diff.tool-added': { level: 'note', title: 'a tool new in B' },
  'diff.input-widened': { level: 'note', title: 'an inputSchema accepts more' },
  'diff.output-narrowed': { level: 'note', title: 'an outputSchema promises more, or a new optional field' },
  'diff.tool-annotation': { level: 'note', title: 'a description, title, annotation or other field changed' },
  'diff.answer-changed': { level: 'warning', title: 'a request recorded in both has a different answer' },
  'diff.key-removed': { level: 'warning', title: 'a request recorded in A is not recorded in B' },
  'diff.key-added': { level: 'note', title: 'a request recorded in B is not recorded in A' },
} as const satisfies Record<string, { level: Level; title: string }>;

export type DiffRuleId = keyof typeof DIFF_RULES;

export const diffGateRules = (): GateRule[] =>
  Object.entries(DIFF_RULES).map(([id, r]) => ({ id, level: r.level, title: r.title, command: 'diff' }));
