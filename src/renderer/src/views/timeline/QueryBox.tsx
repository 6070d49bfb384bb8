import { useLayoutEffect, useRef, useState, type JSX, type KeyboardEvent, type RefObject } from 'react';
import {
  applyCompletion,
  complete,
  type CompletionResult,
  type CompletionValues,
} from '../../models/filter-complete.js';
import type { QueryProblem } from '../../models/filter-query.js';
import { visibleName } from '../../models/visible-text.js';
import { focusTable } from '../../components/focus.js';

interface Props {
  value: string;
  onChange(text: string): void;
  /** the values the traffic offers (methods, tools, proxies…) */
  values: CompletionValues;
  problems: QueryProblem[];
  input: RefObject<HTMLInputElement | null>;
}

const LIST_ID = 'tl-query-options';

/**
 * The search box of the filter language: a combobox whose list completes the key or the value at the cursor
 * (↓/↑ move, Enter or Tab take one, Esc closes the list, a second Esc leaves the box for the table). Problems, and
 * terms not understood, are said beside it.
 */
export function QueryBox({ value, onChange, values, problems, input }: Props): JSX.Element {
  const [list, setList] = useState<CompletionResult>();
  const [active, setActive] = useState(0);
  const caret = useRef<number | undefined>(undefined);

  // put the caret after a taken completion once React has written the new value
  useLayoutEffect(() => {
    if (caret.current === undefined || !input.current) return;
    input.current.setSelectionRange(caret.current, caret.current);
    caret.current = undefined;
  });

  const refresh = (text: string, at: number | null): void => {
    setList(complete(text, at ?? text.length, values));
    setActive(0);
  };

  const take = (index: number): void => {
    if (!list) return;
    const next = applyCompletion(value, list, list.options[index]);
    caret.current = next.cursor;
    onChange(next.text);
    refresh(next.text, next.cursor);
  };

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>): void {
    const open = list !== undefined && list.options.length > 0;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) return refresh(value, event.currentTarget.selectionStart);
      const n = list.options.length;
      setActive((a) => (a + (event.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if ((event.key === 'Enter' || event.key === 'Tab') && open && !event.shiftKey) {
      event.preventDefault();
      take(active);
    } else if (event.key === 'Escape') {
      // the first Esc closes the list, the next leaves the box for the table; neither clears the text (a search
      // box's own Esc would) nor leaves the focus on <body>
      event.preventDefault();
      event.stopPropagation();
      if (open) setList(undefined);
      else focusTable();
    } else if (event.key === ' ' && event.ctrlKey) {
      event.preventDefault();
      refresh(value, event.currentTarget.selectionStart);
    }
  }

  const open = list !== undefined && list.options.length > 0;
  const problem = problems.length ? problems.map((p) => p.message).join(' · ') : undefined;
  return (
    <div className="tl-query">
      <input
        ref={input}
        aria-label="Search"
        type="search"
        role="combobox"
        aria-expanded={open}
        aria-controls={open ? LIST_ID : undefined}
        aria-autocomplete="list"
        aria-activedescendant={open ? `${LIST_ID}-${active}` : undefined}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'tl-query-problem' : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder="tool:echo status:error has:problem, or any text — press /"
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          refresh(e.target.value, e.target.selectionStart);
        }}
        onClick={(e) => refresh(value, e.currentTarget.selectionStart)}
        onKeyUp={(e) =>
          (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') &&
          refresh(value, e.currentTarget.selectionStart)
        }
        onBlur={() => setList(undefined)}
        onKeyDown={onKeyDown}
      />
      {open && (
        <ul id={LIST_ID} role="listbox" aria-label="Filter completions" className="tl-query-list">
          {list.options.map((option, i) => (
            <li
              key={option.label}
              id={`${LIST_ID}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault(); // the box keeps the focus
                take(i);
              }}
            >
              <code>{visibleName(option.label)}</code>
              <span className="muted small">{option.hint}</span>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p id="tl-query-problem" className="tl-query-problem small" role="status">
          {problem}
        </p>
      )}
    </div>
  );
}
