import { useMemo, useState, type KeyboardEvent } from 'react';
import {
  flattenTree,
  initialExpansion,
  pathId,
  revealPath,
  searchTree,
  type SearchHit,
  type TreeRow,
} from '../../../models/json-tree.js';

export interface JsonTreeState {
  rows: TreeRow[];
  /** a row's place in `rows`, by its id */
  index: Map<string, number>;
  selected: string;
  setSelected(id: string): void;
  /** opens or closes a row (`open`: which; by default the other way) */
  toggle(row: TreeRow, open?: boolean): void;
  collapseAll(): void;
  query: string;
  setQuery(query: string): void;
  hits: SearchHit[];
  hitIds: Set<string>;
  hitIndex: number;
  /** steps to match n (wrapping round), revealed and selected */
  goTo(n: number): void;
}

/** A JSON tree's state: the open rows, the selected one, the search and its matches (a new value starts afresh). */
export function useJsonTree(value: unknown): JsonTreeState {
  const [expanded, setExpanded] = useState<Set<string>>(() => initialExpansion(value));
  const [query, setQuery] = useState('');
  const [hitIndex, setHitIndex] = useState(0);
  const [selected, setSelected] = useState<string>(pathId([]));

  // a new value starts afresh (adjusted while rendering, so no frame shows the old state on the new value)
  const [shownValue, setShownValue] = useState(value);
  if (shownValue !== value) {
    setShownValue(value);
    setExpanded(initialExpansion(value));
    setSelected(pathId([]));
  }

  const hits = useMemo(() => searchTree(value, query), [value, query]);
  const [searched, setSearched] = useState(hits);
  const hitIds = useMemo(() => new Set(hits.map((h) => pathId(h.path))), [hits]);
  const rows = useMemo(() => flattenTree(value, expanded), [value, expanded]);
  const index = useMemo(() => new Map(rows.map((r, i) => [r.id, i])), [rows]);

  const goTo = (n: number): void => {
    if (hits.length === 0) return;
    const at = ((n % hits.length) + hits.length) % hits.length;
    setHitIndex(at);
    const target = hits[at].path;
    setExpanded((open) => new Set([...open, ...revealPath(value, target)]));
    setSelected(pathId(target));
  };
  // a new search starts at its first match
  if (searched !== hits) {
    setSearched(hits);
    goTo(0);
  }

  const toggle = (row: TreeRow, open = !row.expanded): void => {
    if (!row.expandable) return;
    setExpanded((was) => {
      const next = new Set(was);
      if (open) next.add(row.id);
      else next.delete(row.id);
      return next;
    });
  };
  const collapseAll = (): void => setExpanded(new Set());
  return { rows, index, selected, setSelected, toggle, collapseAll, query, setQuery, hits, hitIds, hitIndex, goTo };
}

/** the text Copy value copies: a string as it is, anything else as indented JSON */
export const valueText = (row: TreeRow): string =>
  typeof row.value === 'string' ? row.value : (JSON.stringify(row.value, null, 2) ?? '');

/**
 * The tree's keys: ↑/↓ move, ←/→ collapse/expand (← on a closed row goes to its parent), Enter/Space toggle,
 * Ctrl/Cmd+C copies the selected value.
 */
export function onTreeKey(event: KeyboardEvent, tree: JsonTreeState, copy: (text: string) => void): void {
  const { rows, index, selected, setSelected, toggle } = tree;
  const at = index.get(selected) ?? 0;
  const row = rows[at];
  if (!row) return;
  const move = (to: number): void => {
    event.preventDefault();
    const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
    if (next) setSelected(next.id);
  };
  if (event.key === 'ArrowDown') move(at + 1);
  else if (event.key === 'ArrowUp') move(at - 1);
  else if (event.key === 'ArrowRight') {
    event.preventDefault();
    if (row.expandable && !row.expanded) toggle(row, true);
    else move(at + 1);
  } else if (event.key === 'ArrowLeft') {
    event.preventDefault();
    if (row.expanded) toggle(row, false);
    else {
      for (let i = at - 1; i >= 0; i--) if (rows[i].depth < row.depth) return setSelected(rows[i].id);
    }
  } else if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    toggle(row);
  } else if ((event.ctrlKey || event.metaKey) && event.key === 'c') {
    event.preventDefault();
    copy(valueText(row));
  }
}
