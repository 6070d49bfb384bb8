import type { JSX } from 'react';
import { pathText, type TreeRow } from '../../../models/json-tree.js';
import { valueText, type JsonTreeState } from './use-json-tree.js';

interface Props {
  label: string;
  tree: JsonTreeState;
  /** the selected row */
  current: TreeRow | undefined;
  copy(text: string): void;
  /** what the last copy said */
  status: string | undefined;
}

/** the search in the tree: how many matches, and a step to the previous or next (Enter, Shift+Enter) */
function JsonSearch({ label, tree }: { label: string; tree: JsonTreeState }): JSX.Element {
  const { query, setQuery, hits, hitIndex, goTo } = tree;
  return (
    <>
      <input
        type="search"
        aria-label={`Search in ${label}`}
        placeholder="search keys and values"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && goTo(hitIndex + (e.shiftKey ? -1 : 1))}
      />
      {query.trim() && (
        <span className="muted small" data-testid="json-hits">
          {hits.length === 0 ? 'no match' : `${hitIndex + 1} of ${hits.length}${hits.length >= 1000 ? '+' : ''}`}
        </span>
      )}
      <button
        type="button"
        className="small"
        disabled={hits.length === 0}
        onClick={() => goTo(hitIndex - 1)}
        aria-label="Previous match"
      >
        ↑
      </button>
      <button
        type="button"
        className="small"
        disabled={hits.length === 0}
        onClick={() => goTo(hitIndex + 1)}
        aria-label="Next match"
      >
        ↓
      </button>
    </>
  );
}

/** the tree's search (its matches stepped through) and its buttons: collapse all, copy the value or its path */
export function JsonTreeTools({ label, tree, current, copy, status }: Props): JSX.Element {
  return (
    <div className="json-tools">
      <JsonSearch label={label} tree={tree} />
      <span className="spacer" />
      <button type="button" className="small" onClick={tree.collapseAll}>
        Collapse all
      </button>
      <button
        type="button"
        className="small"
        onClick={() => current && copy(valueText(current))}
        title="Copy the selected value (Ctrl+C)"
      >
        Copy value
      </button>
      <button
        type="button"
        className="small"
        onClick={() => current && copy(pathText(current.path))}
        title="Copy the selected value's path"
      >
        Copy path
      </button>
      {status && (
        <span className="muted small" aria-live="polite">
          {status}
        </span>
      )}
    </div>
  );
}
