import { Name } from '../../components/Name.js';
import type { JSX } from 'react';
import { useRules } from '../../stores/rules.js';
import { InjectFields, OverrideFields } from './BehaviorFields.js';
import { FieldErrors, KeepableField } from './fields.js';
import { ConditionFields } from '../../components/ConditionFields.js';
import { isEmptyCondition } from '../../models/condition-draft.js';
import { conditionPaths } from '../../models/condition-paths.js';
import {
  EMPTY_OBJECT_SCHEMA,
  emptyForm,
  issuesAt,
  type BehaviorKind,
  type Issue,
  type ToolForm,
} from '../../models/rules-form.js';
import './rules.css';

const BEHAVIORS: Array<{ kind: BehaviorKind; hint: string }> = [
  { kind: 'relay', hint: "the upstream's (or cassette's) answer, unchanged" },
  { kind: 'override', hint: 'a fixed response; the upstream is not contacted' },
  { kind: 'inject', hint: "the upstream's result with its content replaced by a template" },
];

/** Where a tool comes from: the applied merged list, else tools seen earlier, else a draft-only synthetic tool. */
function useOrigin(name: string): string {
  const tool = useRules((s) => s.tools.find((t) => t.name === name) ?? s.seen[name]);
  return tool?.origin ?? 'synthetic (new)';
}

/** The rule editor of the selected tool. */
export function ToolEditor({ proxyId, name, issues }: { proxyId: string; name: string; issues: Issue[] }): JSX.Element {
  const listed = useRules((s) => s.forms.find((f) => f.name === name));
  const edit = useRules((s) => s.edit);
  const removeRule = useRules((s) => s.removeRule);
  const passthrough = useRules((s) => s.passthrough);
  const origin = useOrigin(name);
  const upstreamDescription = useRules((s) => s.seen[name]?.description);
  const inputSchema = useRules((s) => (s.tools.find((t) => t.name === name) ?? s.seen[name])?.inputSchema);
  const form: ToolForm = listed ?? emptyForm(name);
  const synthetic = origin.startsWith('synthetic');
  const onChange = (patch: Partial<ToolForm>): void => edit(name, patch);

  return (
    <section className="card rule-editor" aria-label={`Rule for ${name}`}>
      <div className="toolbar">
        <h2>
          <code>
            <Name value={name} />
          </code>
        </h2>
        <span className="badge">{origin}</span>
        {listed ? (
          <button type="button" onClick={() => removeRule(name)}>
            Remove rule
          </button>
        ) : (
          <span className="muted small">
            {passthrough ? 'no rule: exposed unchanged (relay)' : 'no rule: hidden (passthrough off)'}
          </span>
        )}
      </div>

      <fieldset>
        <legend>Behavior</legend>
        <div className="behavior-choice" role="radiogroup" aria-label="Behavior">
          {BEHAVIORS.map((b) => (
            <label key={b.kind} title={b.hint}>
              <input
                type="radio"
                name={`behavior-${name}`}
                value={b.kind}
                checked={form.behavior === b.kind}
                onChange={() => onChange({ behavior: b.kind })}
              />
              {b.kind}
            </label>
          ))}
        </div>
        <p className="hint">{BEHAVIORS.find((b) => b.kind === form.behavior)?.hint}</p>
      </fieldset>

      {form.behavior !== 'relay' && (
        <fieldset className="rule-condition">
          <legend>Only when</legend>
          <ConditionFields
            draft={form.condition}
            onChange={(condition) => onChange({ condition })}
            suggestions={conditionPaths('tools/call', 'request', inputSchema)}
            label={`Condition of ${name}`}
          />
          <p className="hint">
            {isEmptyCondition(form.condition)
              ? `every call gets the ${form.behavior}; give a path (params.arguments.…) to limit it`
              : `calls that do not match are relayed unchanged`}
          </p>
        </fieldset>
      )}
      {form.behavior === 'override' && <OverrideFields form={form} issues={issues} onChange={onChange} />}
      {form.behavior === 'inject' && <InjectFields proxyId={proxyId} form={form} issues={issues} onChange={onChange} />}

      <KeepableField
        label="description"
        value={form.description}
        onChange={(description) => onChange({ description })}
        issues={issuesAt(issues, 'description')}
        initial={upstreamDescription ?? ''}
        rows={2}
      />
      <KeepableField
        label="input_schema"
        value={form.inputSchemaJson}
        onChange={(inputSchemaJson) => onChange({ inputSchemaJson })}
        issues={issuesAt(issues, 'input_schema', true)}
        initial={EMPTY_OBJECT_SCHEMA}
        rows={6}
        required={synthetic}
      />
      {synthetic && form.inputSchemaJson === null && (
        <p className="field-error">input_schema: a synthetic tool needs one</p>
      )}
      <FieldErrors issues={issues.filter((i) => i.path === 'name' || i.path === '(rule)')} />
    </section>
  );
}
