/**
 * The CI gate's vocabulary, one for lint, diff and redact --scan (issue 33): every finding names a stable rule id
 * and has a level — SARIF's `error`, `warning`, `note` — and `--fail-on` says from which level a run exits 1.
 * Pure.
 */

export const LEVELS = ['error', 'warning', 'note'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * `--fail-on`: `error` (the default) fails on an error finding, `warning` on an error or a warning, `note` on any
 * finding, `never` on none (report only). `breaking` is diff's word for its error tier (every error diff reports is
 * a change that breaks a client: a removed tool, a narrowed input, a widened output, a schema change it cannot
 * judge), accepted by every command with the same meaning as `error`.
 */
export const FAIL_ON = ['error', 'breaking', 'warning', 'note', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

const LOWEST_FAILING: Record<FailOn, number> = { error: 0, breaking: 0, warning: 1, note: 2, never: -1 };

/** Does a run with findings at these levels fail under `--fail-on`? */
export function failsOn(failOn: FailOn, levels: Iterable<Level>): boolean {
  const lowest = LOWEST_FAILING[failOn];
  for (const level of levels) if (LEVELS.indexOf(level) <= lowest) return true;
  return false;
}

/** `--fail-on` as given on the command line, or undefined when it is not one of FAIL_ON. */
export const parseFailOn = (value: unknown): FailOn | undefined =>
  FAIL_ON.find((f) => f === String(value).toLowerCase());

/** A rule of the gate: its stable id, its level, what it says in a few words, and the command that reports it. */
export interface GateRule {
  id: string;
  level: Level;
  title: string;
  command: 'lint' | 'diff' | 'redact --scan';
}
