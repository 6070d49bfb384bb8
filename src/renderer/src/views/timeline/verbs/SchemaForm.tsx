import { useState, type JSX } from 'react';
import {
  addItem,
  getAt,
  itemAt,
  numberFrom,
  optionKey,
  optionOf,
  pathText,
  removeItem,
  setAt,
  type Field,
} from '../../../models/schema-form.js';

interface Props {
  form: Field;
  value: unknown;
  onChange(value: unknown): void;
  /** the engine's schema problems by path text ("attendees[1].email") */
  problems: Map<string, string[]>;
  /** names the form for assistive tech ("Arguments of echo") */
  label: string;
}

const idOf = (field: Field): string => `sf-${pathText(field.path).replace(/[^A-Za-z0-9_-]/g, '_') || 'root'}`;

/** A number input that keeps what is typed (e.g. "1.") while the value holds what it means. */
function NumberInput({
  field,
  value,
  set,
  invalid,
}: {
  field: Field;
  value: unknown;
  set: (v: unknown) => void;
  invalid: boolean;
}): JSX.Element {
  const [typed, setText] = useState(value === undefined ? '' : String(value));
  // what was typed while it still means the value (e.g. "1."), else the value as it changed from outside
  const text = numberFrom(typed, field.kind === 'integer') === value ? typed : value === undefined ? '' : String(value);
  return (
    <input
      id={idOf(field)}
      inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
      value={text}
      aria-invalid={invalid}
      placeholder={field.default !== undefined ? `default ${JSON.stringify(field.default)}` : field.kind}
      onChange={(e) => {
        setText(e.target.value);
        set(numberFrom(e.target.value, field.kind === 'integer'));
      }}
    />
  );
}

/** A part the form cannot express, edited as JSON text (kept as typed while it does not parse). */
function JsonInput({
  field,
  value,
  set,
  invalid,
}: {
  field: Field;
  value: unknown;
  set: (v: unknown) => void;
  invalid: boolean;
}): JSX.Element {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [bad, setBad] = useState(false);
  return (
    <input
      id={idOf(field)}
      className="mono"
      value={text}
      aria-invalid={invalid || bad}
      placeholder="JSON"
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === '') {
          set(undefined);
          setBad(false);
          return;
        }
        try {
          set(JSON.parse(e.target.value));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

function Control({
  field,
  value,
  set,
  invalid,
}: {
  field: Field;
  value: unknown;
  set: (v: unknown) => void;
  invalid: boolean;
}): JSX.Element {
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          id={idOf(field)}
          type="checkbox"
          checked={value === true}
          aria-invalid={invalid}
          onChange={(e) => set(e.target.checked ? true : field.required ? false : undefined)}
        />
      );
    case 'enum':
      return (
        <select
          id={idOf(field)}
          value={value === undefined ? '' : optionKey(value)}
          aria-invalid={invalid}
          onChange={(e) => set(optionOf(field, e.target.value))}
        >
          <option value="">{field.required ? '— choose —' : '(not set)'}</option>
          {field.options?.map((o) => (
            <option key={optionKey(o)} value={optionKey(o)}>
              {typeof o === 'string' ? o : JSON.stringify(o)}
            </option>
          ))}
        </select>
      );
    case 'number':
    case 'integer':
      return <NumberInput field={field} value={value} set={set} invalid={invalid} />;
    case 'json':
      return <JsonInput field={field} value={value} set={set} invalid={invalid} />;
    default:
      return (
        <input
          id={idOf(field)}
          type={field.format === 'date' ? 'date' : field.format === 'email' ? 'email' : 'text'}
          value={typeof value === 'string' ? value : value === undefined ? '' : String(value)}
          aria-invalid={invalid}
          placeholder={field.default !== undefined ? `default ${JSON.stringify(field.default)}` : (field.format ?? '')}
          onChange={(e) => set(e.target.value === '' && !field.required ? undefined : e.target.value)}
        />
      );
  }
}

function FieldView({
  field,
  root,
  onChange,
  problems,
}: {
  field: Field;
  root: unknown;
  onChange(v: unknown): void;
  problems: Map<string, string[]>;
}): JSX.Element {
  const value = getAt(root, field.path);
  const set = (v: unknown): void => onChange(setAt(root, field.path, v));
  const here = problems.get(pathText(field.path)) ?? [];
  const label = (
    <span className="sf-label">
      {field.label}
      {field.required && (
        <span className="sf-required" title="required">
          {' '}
          *
        </span>
      )}
      {field.nullable && <span className="muted small"> (or null)</span>}
    </span>
  );
  const notes = (
    <>
      {field.description && <span className="field-hint">{field.description}</span>}
      {field.reason && <span className="field-hint">{field.reason}</span>}
      {here.map((m) => (
        <span key={m} className="field-error" role="alert">
          {field.label}: {m}
        </span>
      ))}
    </>
  );
  if (field.kind === 'object') {
    return (
      <fieldset className="sf-object">
        <legend>{label}</legend>
        {notes}
        {field.fields?.length ? (
          field.fields.map((f) => (
            <FieldView key={f.name} field={f} root={root} onChange={onChange} problems={problems} />
          ))
        ) : (
          <span className="muted small">no properties</span>
        )}
      </fieldset>
    );
  }
  if (field.kind === 'array') {
    const items = Array.isArray(value) ? value : [];
    return (
      <fieldset className="sf-array">
        <legend>{label}</legend>
        {notes}
        {items.map((_, i) => {
          const item = itemAt(field, i);
          return (
            <div key={i} className="sf-item">
              <FieldView field={item} root={root} onChange={onChange} problems={problems} />
              <button
                type="button"
                className="small"
                aria-label={`Remove ${field.label} ${i + 1}`}
                onClick={() => onChange(removeItem(root, item.path))}
              >
                ✕
              </button>
            </div>
          );
        })}
        <button
          type="button"
          className="small"
          onClick={() => onChange(addItem(root, field.path, field.item as Field))}
        >
          + Add {field.label === 'item' ? 'item' : `to ${field.label}`}
        </button>
      </fieldset>
    );
  }
  return (
    <div className={`sf-field${field.kind === 'boolean' ? ' inline' : ''}`}>
      <label htmlFor={idOf(field)}>{label}</label>
      <div className="control">
        <Control field={field} value={value} set={set} invalid={here.length > 0} />
        {notes}
      </div>
    </div>
  );
}

/** A form generated from a JSON Schema (schema-form.ts): controlled by `value`, problems beside their fields. */
export function SchemaForm({ form, value, onChange, problems, label }: Props): JSX.Element {
  const rootProblems = problems.get('') ?? [];
  return (
    <div className="schema-form" role="group" aria-label={label}>
      {form.kind === 'object' ? (
        form.fields?.length ? (
          form.fields.map((f) => (
            <FieldView key={f.name} field={f} root={value} onChange={onChange} problems={problems} />
          ))
        ) : (
          <p className="muted small">No arguments.</p>
        )
      ) : (
        <FieldView field={form} root={value} onChange={onChange} problems={problems} />
      )}
      {rootProblems.map((m) => (
        <p key={m} className="field-error" role="alert">
          {m}
        </p>
      ))}
    </div>
  );
}
