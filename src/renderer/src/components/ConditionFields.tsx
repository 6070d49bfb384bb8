import { useId, type JSX } from 'react';
import { CONDITION_OPERATORS, OPERATOR_LABELS, type ConditionOperator } from '../../../shared/conditions.js';
import { checkCondition, type ConditionDraft } from '../models/condition-draft.js';
import './condition.css';

/**
 * A condition on one line: path (with suggestions), operator, value, and what is wrong with it right under them.
 * Native inputs only, so Tab, arrows and Enter (submits the form it is in) work as everywhere.
 */
export function ConditionFields({
  draft,
  onChange,
  suggestions,
  label = 'Condition',
}: {
  draft: ConditionDraft;
  onChange: (draft: ConditionDraft) => void;
  /** paths worth offering: the tool's arguments, params.uri… */
  suggestions: string[];
  label?: string;
}): JSX.Element {
  const listId = useId();
  const checked = checkCondition(draft);
  const invalid = !checked.ok;
  const set = (patch: Partial<ConditionDraft>): void => onChange({ ...draft, ...patch });
  return (
    // a group, not a fieldset: it sits inside the views' own fieldsets without their frame
    <div role="group" className="condition" aria-label={label}>
      <span className="condition-if" aria-hidden="true">
        If
      </span>
      <input
        aria-label="Condition path"
        className="condition-path"
        list={listId}
        value={draft.path}
        placeholder="params.arguments.text (empty: always)"
        spellCheck={false}
        aria-invalid={invalid && /path/.test(checked.message)}
        onChange={(e) => set({ path: e.target.value })}
      />
      <datalist id={listId}>
        {suggestions.map((path) => (
          <option key={path} value={path} />
        ))}
      </datalist>
      <select
        aria-label="Condition operator"
        value={draft.op}
        onChange={(e) => set({ op: e.target.value as ConditionOperator })}
      >
        {CONDITION_OPERATORS.map((op) => (
          <option key={op} value={op}>
            {OPERATOR_LABELS[op]}
          </option>
        ))}
      </select>
      <input
        aria-label="Condition value"
        className="condition-value"
        value={draft.value}
        placeholder={draft.op === 'regex' ? '^id-\\d+$, /…/i' : 'text, or 42'}
        spellCheck={false}
        aria-invalid={invalid && /value/.test(checked.message)}
        onChange={(e) => set({ value: e.target.value })}
      />
      {!checked.ok && (
        <span role="alert" className="error small condition-error">
          {checked.message}
        </span>
      )}
    </div>
  );
}
