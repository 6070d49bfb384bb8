import { ConditionSchema, type Condition, type ConditionOperator } from '../../../shared/conditions.js';
import { describeZodError } from '../../../shared/rules/schema.js';

/** What a condition's three fields hold as typed (an empty path and value: no condition). */
export interface ConditionDraft {
  path: string;
  op: ConditionOperator;
  value: string;
}

export const EMPTY_CONDITION: ConditionDraft = { path: '', op: 'contains', value: '' };

export type CheckedCondition = { ok: true; condition?: Condition } | { ok: false; message: string };

export const isEmptyCondition = (draft: ConditionDraft): boolean => draft.path.trim() === '' && draft.value === '';

/** The draft as a condition, by the engine's own schema (the message names the field: `path: …`, `value: …`). */
export function checkCondition(draft: ConditionDraft): CheckedCondition {
  if (isEmptyCondition(draft)) return { ok: true };
  const parsed = ConditionSchema.safeParse(draft);
  return parsed.success ? { ok: true, condition: parsed.data } : { ok: false, message: describeZodError(parsed.error) };
}

export const draftOf = (condition?: Condition): ConditionDraft => condition ?? EMPTY_CONDITION;
