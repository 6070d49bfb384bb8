import { RulesFileSchema, describeZodError, type RulesFile, type ToolRule } from '../../../shared/rules/schema.js';
import { EMPTY_CONDITION, draftOf, isEmptyCondition, type ConditionDraft } from './condition-draft.js';

/**
 * The Rules view edits each tool's rule through a form of plain strings (what the inputs hold). A form turns into a
 * candidate rule object, and the whole draft is validated with the SAME zod schema the engine uses (RulesFileSchema),
 * so the errors shown name the same fields (`tools.0.behavior.response.delay_s`) the engine would refuse.
 */

export type BehaviorKind = 'relay' | 'override' | 'inject';

export interface ToolForm {
  name: string;
  behavior: BehaviorKind;
  /** inject */
  template: string;
  /** override: '' means absent */
  text: string;
  /** override: JSON array of content blocks; '' means absent */
  contentJson: string;
  /** override: JSON object; '' means absent */
  structuredJson: string;
  isError: boolean;
  /** override: seconds; '' means absent */
  delay: string;
  /** null: keep the upstream's */
  description: string | null;
  /** null: keep the upstream's (JSON text otherwise) */
  inputSchemaJson: string | null;
  /** left out of tools/list; a call to it is refused as unknown */
  hidden: boolean;
  /** override / inject only for the calls that match (empty: every call) */
  condition: ConditionDraft;
}

/** One problem, with its path inside the tool's rule (`behavior.response.text`) or the file (`passthrough`). */
export interface Issue {
  path: string;
  message: string;
}

export const EMPTY_OBJECT_SCHEMA = '{\n  "type": "object",\n  "properties": {}\n}';

const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

export function emptyForm(name: string): ToolForm {
  return {
    name,
    behavior: 'relay',
    template: '{original_text}',
    text: '',
    contentJson: '',
    structuredJson: '',
    isError: false,
    delay: '',
    description: null,
    inputSchemaJson: null,
    hidden: false,
    condition: EMPTY_CONDITION,
  };
}

/** A synthetic tool: it has no upstream counterpart, so it needs its own input schema (and answers by itself). */
export function syntheticForm(name: string): ToolForm {
  return {
    ...emptyForm(name),
    behavior: 'override',
    text: `${name}: not implemented`,
    description: '',
    inputSchemaJson: EMPTY_OBJECT_SCHEMA,
  };
}

export function ruleToForm(rule: ToolRule): ToolForm {
  const form = emptyForm(rule.name);
  form.description = rule.description ?? null;
  form.inputSchemaJson = rule.input_schema ? pretty(rule.input_schema) : null;
  form.hidden = rule.hidden === true;
  form.condition = draftOf(rule.condition);
  const behavior = rule.behavior;
  if (behavior?.type === 'inject') return { ...form, behavior: 'inject', template: behavior.template };
  if (behavior?.type === 'override') {
    const r = behavior.response;
    return {
      ...form,
      behavior: 'override',
      text: r.text ?? '',
      contentJson: r.content ? pretty(r.content) : '',
      structuredJson: r.structured_content ? pretty(r.structured_content) : '',
      isError: r.is_error ?? false,
      delay: r.delay_s === undefined ? '' : String(r.delay_s),
    };
  }
  return form;
}

/** JSON text to a value; a parse error becomes an issue at `path` (the value is then left out). */
function parseJson(text: string, path: string, issues: Issue[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    issues.push({ path, message: `not valid JSON (${(error as Error).message})` });
    return undefined;
  }
}

/** The rule a form stands for, unvalidated (zod decides), plus the JSON syntax errors found on the way. */
export function formToCandidate(form: ToolForm): { rule: Record<string, unknown>; issues: Issue[] } {
  const issues: Issue[] = [];
  const rule: Record<string, unknown> = { name: form.name };
  if (form.hidden) rule.hidden = true;
  if (form.description !== null) rule.description = form.description;
  if (form.inputSchemaJson !== null) {
    const schema = parseJson(form.inputSchemaJson, 'input_schema', issues);
    if (schema !== undefined) rule.input_schema = schema;
  }
  // zod judges the condition (its messages name condition.path, condition.value); relay has nothing to limit
  if (form.behavior !== 'relay' && !isEmptyCondition(form.condition)) rule.condition = { ...form.condition };
  if (form.behavior === 'relay') rule.behavior = { type: 'relay' };
  if (form.behavior === 'inject') rule.behavior = { type: 'inject', template: form.template };
  if (form.behavior === 'override') {
    const response: Record<string, unknown> = {};
    if (form.text !== '') response.text = form.text;
    if (form.contentJson.trim() !== '') {
      const content = parseJson(form.contentJson, 'behavior.response.content', issues);
      if (content !== undefined) response.content = content;
    }
    if (form.structuredJson.trim() !== '') {
      const structured = parseJson(form.structuredJson, 'behavior.response.structured_content', issues);
      if (structured !== undefined) response.structured_content = structured;
    }
    if (form.isError) response.is_error = true;
    if (form.delay.trim() !== '') {
      const seconds = Number(form.delay);
      // not a number: hand zod the string itself, so that its message names the field
      response.delay_s = Number.isFinite(seconds) ? seconds : form.delay;
    }
    rule.behavior = { type: 'override', response };
  }
  return { rule, issues };
}

export interface DraftCheck {
  /** the rules file to apply (present only when every form is valid) */
  rules?: RulesFile;
  /** what the rules JSON view shows: the candidate even when invalid */
  candidate: Record<string, unknown>;
  /** issues per tool name (paths relative to the tool's rule) */
  byTool: Record<string, Issue[]>;
  /** issues outside any tool */
  general: Issue[];
  /** one line naming every bad field, or undefined */
  summary?: string;
}

/** Validates the whole draft with RulesFileSchema (the one the engine's rules.set uses). */
export function checkDraft(draft: { passthrough: boolean; instructions?: string; forms: ToolForm[] }): DraftCheck {
  const byTool: Record<string, Issue[]> = Object.create(null); // keyed by tool names: `constructor` is a tool like any other
  const general: Issue[] = [];
  const tools = draft.forms.map((form) => {
    const { rule, issues } = formToCandidate(form);
    if (issues.length) byTool[form.name] = issues;
    return rule;
  });
  const candidate: Record<string, unknown> = {
    ...(draft.instructions !== undefined ? { instructions: draft.instructions } : {}),
    passthrough: draft.passthrough,
    tools,
  };
  const parsed = RulesFileSchema.safeParse(candidate);
  const lines: string[] = Object.entries(byTool).flatMap(([name, issues]) =>
    issues.map((i) => `${name}: ${i.path}: ${i.message}`),
  );
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [head, index, ...rest] = issue.path.map(String);
      const form = head === 'tools' ? draft.forms[Number(index)] : undefined;
      if (form) (byTool[form.name] ??= []).push({ path: rest.join('.') || '(rule)', message: issue.message });
      else general.push({ path: issue.path.join('.') || '(rules)', message: issue.message });
    }
    lines.push(describeZodError(parsed.error));
  }
  const valid = parsed.success && lines.length === 0;
  return {
    rules: valid ? parsed.data : undefined,
    candidate,
    byTool,
    general,
    summary: lines.length ? lines.join('; ') : undefined,
  };
}

/** The issues for one field: those at `path` exactly, or below it when `below` is set. */
export function issuesAt(issues: Issue[] | undefined, path: string, below = false): Issue[] {
  return (issues ?? []).filter((i) => i.path === path || (below && i.path.startsWith(`${path}.`)));
}
