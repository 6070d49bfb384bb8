import type { JSX } from 'react';

/**
 * A one-line note editor (pins and notes): Enter saves, Escape cancels without closing what it sits in, leaving the
 * field does `onBlur`.
 */
export function NoteInput(props: {
  label: string;
  placeholder: string;
  value: string;
  onChange(text: string): void;
  onSave(): void;
  onCancel(): void;
  onBlur(): void;
}): JSX.Element {
  return (
    <input
      className="note-input"
      aria-label={props.label}
      autoFocus
      maxLength={500}
      value={props.value}
      placeholder={props.placeholder}
      onChange={(e) => props.onChange(e.target.value)}
      onBlur={props.onBlur}
      onKeyDown={(e) => {
        if (e.key === 'Enter') props.onSave();
        if (e.key === 'Escape') {
          e.stopPropagation();
          props.onCancel();
        }
      }}
    />
  );
}
