import { useId, type JSX, type ReactNode } from 'react';
import type { Issue } from '../../models/rules-form.js';
import './rules.css';

/** The errors of one field, each naming its path, as the engine would report it. */
export function FieldErrors({ issues }: { issues: Issue[] }): JSX.Element | null {
  if (issues.length === 0) return null;
  return (
    <>
      {issues.map((i, n) => (
        <p key={n} className="field-error" role="alert">
          {i.path}: {i.message}
        </p>
      ))}
    </>
  );
}

interface TextFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  issues: Issue[];
  rows?: number;
  placeholder?: string;
  hint?: ReactNode;
  /** a multi-line textarea (default) or a one-line input */
  multiline?: boolean;
}

/** A labelled text input or textarea with its inline errors. */
export function TextField({
  label,
  value,
  onChange,
  issues,
  rows = 3,
  placeholder,
  hint,
  multiline = true,
}: TextFieldProps): JSX.Element {
  const invalid = issues.length > 0 ? true : undefined;
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea
          id={id}
          rows={rows}
          spellCheck={false}
          value={value}
          placeholder={placeholder}
          aria-invalid={invalid}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          id={id}
          type="text"
          spellCheck={false}
          value={value}
          placeholder={placeholder}
          aria-invalid={invalid}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {hint && <span className="small">{hint}</span>}
      <FieldErrors issues={issues} />
    </div>
  );
}

interface KeepableProps {
  label: string;
  /** null: keep the upstream's value */
  value: string | null;
  onChange: (value: string | null) => void;
  issues: Issue[];
  /** what a fresh override starts with */
  initial: string;
  rows?: number;
  /** a synthetic tool has no upstream value to keep */
  required?: boolean;
}

/** A field that is either "keep the upstream's" (null) or overridden. */
export function KeepableField({
  label,
  value,
  onChange,
  issues,
  initial,
  rows = 3,
  required,
}: KeepableProps): JSX.Element {
  return (
    <div>
      <label className="field inline">
        <input
          type="checkbox"
          checked={value !== null}
          disabled={required && value !== null}
          onChange={(e) => onChange(e.target.checked ? initial : null)}
        />
        Override {label}
        {value === null && <span className="small">(keeps the upstream's)</span>}
      </label>
      {value !== null && <TextField label={label} value={value} onChange={onChange} issues={issues} rows={rows} />}
      {value === null && <FieldErrors issues={issues} />}
    </div>
  );
}
