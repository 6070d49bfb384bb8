import { useEffect, useId, useRef, useState, type JSX } from 'react';

interface CommitInputProps {
  label: string;
  /** the saved value */
  value: string;
  type?: 'text' | 'number';
  hint?: string;
  min?: number;
  max?: number;
  step?: number;
  wide?: boolean;
  /** saves the text; rejects with the engine's message (shown under the field) */
  onCommit(text: string): Promise<void>;
}

const DEBOUNCE_MS = 600;

/**
 * A text field saved on change: a short pause in typing, Enter or leaving the field saves it. While the user types,
 * changes arriving from the engine do not overwrite the draft; Escape goes back to the saved value.
 */
export function CommitInput({
  label,
  value,
  type = 'text',
  hint,
  min,
  max,
  step,
  wide,
  onCommit,
}: CommitInputProps): JSX.Element {
  const id = useId();
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string>();
  const editing = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const committed = useRef(value);

  useEffect(() => {
    committed.current = value;
    if (!editing.current) setDraft(value);
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const commit = (text: string): void => {
    clearTimeout(timer.current);
    if (text === committed.current) return setError(undefined);
    committed.current = text;
    onCommit(text).then(
      () => setError(undefined),
      (e: Error) => {
        committed.current = ''; // let the same text be tried again
        setError(e.message.replace(/^settings(\.set)?: (invalid input: )?/, ''));
      },
    );
  };

  return (
    <div className={`setting${wide ? ' wide' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={draft}
        min={min}
        max={max}
        step={step}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint`}
        onFocus={() => void (editing.current = true)}
        onChange={(e) => {
          const text = e.target.value;
          setDraft(text);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(text), DEBOUNCE_MS);
        }}
        onBlur={(e) => {
          editing.current = false;
          commit(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit(e.currentTarget.value);
          if (e.key === 'Escape') {
            clearTimeout(timer.current);
            setDraft(value);
            setError(undefined);
          }
        }}
      />
      <div id={`${id}-hint`} className={error ? 'error small' : 'hint'} role={error ? 'alert' : undefined}>
        {error ?? hint}
      </div>
    </div>
  );
}
