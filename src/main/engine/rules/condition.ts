import { CONDITION_TEXT_MAX, conditionRegex, type Condition } from '../../../shared/conditions.js';
import { parseFieldPattern, type FieldPattern } from '../../../shared/json-path.js';

/** What a condition looks at: the request's method and params, and (response stage) the result or the error. */
export interface ConditionSubject {
  method: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** a compiled condition: true when the message matches */
export type ConditionTest = (subject: ConditionSubject) => boolean;

/** Every value the pattern reaches in `value` (a `**` step may reach several; a missing key reaches none). */
export function valuesAt(value: unknown, pattern: FieldPattern, from = 0, out: unknown[] = []): unknown[] {
  if (from === pattern.length) {
    out.push(value);
    return out;
  }
  const step = pattern[from];
  if (step === 'deep') valuesAt(value, pattern, from + 1, out); // zero steps
  if (value === null || typeof value !== 'object') return out;
  const children: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value);
  for (const [part, child] of children) {
    if (step === 'deep') valuesAt(child, pattern, from, out);
    else if (step === 'any') valuesAt(child, pattern, from + 1, out);
    else if ('key' in step ? String(part) === step.key && !Array.isArray(value) : part === step.index)
      valuesAt(child, pattern, from + 1, out);
  }
  return out;
}

/**
 * a string as it is; any other value as its JSON (so `5`, `true`, `null` compare as they are written); only its first
 * CONDITION_TEXT_MAX characters
 */
const asText = (value: unknown): string =>
  (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, CONDITION_TEXT_MAX);

/**
 * Compiles a condition (validated by ConditionSchema) once, for every message it is tested against. It holds when
 * any value the path reaches satisfies the operator: `equals` the whole text, `contains` a part of it, `regex` a
 * match anywhere (anchor it with ^…$ for the whole) — each in the value's first CONDITION_TEXT_MAX characters.
 */
export function compileCondition(condition: Condition): ConditionTest {
  const pattern = parseFieldPattern(condition.path);
  const { value } = condition;
  const test: (text: string) => boolean =
    condition.op === 'equals'
      ? (text) => text === value
      : condition.op === 'contains'
        ? (text) => text.includes(value)
        : (
            (regex) => (text: string) =>
              regex.test(text)
          )(conditionRegex(value));
  return (subject) => valuesAt(subject, pattern).some((found) => found !== undefined && test(asText(found)));
}
