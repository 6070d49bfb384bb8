import { useEffect, useMemo, useRef, useState, type JSX, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import {
  flattenTree,
  initialExpansion,
  pathId,
  pathText,
  preview,
  revealPath,
  searchTree,
  type TreeRow,
} from '../../../models/json-tree.js';
import { copyText } from '../../../components/clipboard.js';

const ROW = 22;

/**
 * A JSON value as a collapsible tree: virtualised (only the rows on screen are in the DOM, so a 5 MB result opens at
 * once), search within (matches are revealed and stepped through), copy the selected value or its path. Keyboard:
 * ↑/↓ move, ←/→ collapse/expand, Enter toggles, Ctrl/Cmd+C copies the value.
 */
export function JsonTree({
  value,
  label,
  maxHeight,
}: {
  value: unknown;
  label: string;
  maxHeight?: number;
}): JSX.Element {
  const [expanded, setExpanded] = useState<Set<string>>(() => initialExpansion(value));
  const [query, setQuery] = useState('');
  const [hitIndex, setHitIndex] = useState(0);
  const [selected, setSelected] = useState<string>(pathId([]));
  const [status, setStatus] = useState<string>();
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setExpanded(initialExpansion(value));
    setSelected(pathId([]));
  }, [value]);

  const hits = useMemo(() => searchTree(value, query), [value, query]);
  const hitIds = useMemo(() => new Set(hits.map((h) => pathId(h.path))), [hits]);
  const rows = useMemo(() => flattenTree(value, expanded), [value, expanded]);
  const index = useMemo(() => new Map(rows.map((r, i) => [r.id, i])), [rows]);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 20,
  });

  const goTo = (n: number): void => {
    if (hits.length === 0) return;
    const at = ((n % hits.length) + hits.length) % hits.length;
    setHitIndex(at);
    const target = hits[at].path;
    setExpanded((open) => new Set([...open, ...revealPath(value, target)]));
    setSelected(pathId(target));
  };
  useEffect(() => {
    if (hits.length) goTo(0);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new query starts at its first match
  }, [hits]);
  useEffect(() => {
    const at = index.get(selected);
    if (at !== undefined) virtualizer.scrollToIndex(at, { align: 'auto' });
  }, [selected, index, virtualizer]);

  const toggle = (row: TreeRow, open = !row.expanded): void => {
    if (!row.expandable) return;
    setExpanded((was) => {
      const next = new Set(was);
      if (open) next.add(row.id);
      else next.delete(row.id);
      return next;
    });
  };
  const current = rows[index.get(selected) ?? 0];
  const valueText = (row: TreeRow): string =>
    typeof row.value === 'string' ? row.value : (JSON.stringify(row.value, null, 2) ?? '');

  function onKeyDown(event: KeyboardEvent): void {
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
      copyText(valueText(row), setStatus);
    }
  }

  const items = virtualizer.getVirtualItems();
  return (
    <section className="json-tree" aria-label={label}>
      <div className="json-tools">
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
        <span className="spacer" />
        <button type="button" className="small" onClick={() => setExpanded(new Set())}>
          Collapse all
        </button>
        <button
          type="button"
          className="small"
          onClick={() => current && copyText(valueText(current), setStatus)}
          title="Copy the selected value (Ctrl+C)"
        >
          Copy value
        </button>
        <button
          type="button"
          className="small"
          onClick={() => current && copyText(pathText(current.path), setStatus)}
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
      <div
        className="json-rows"
        ref={scroller}
        style={maxHeight ? { maxHeight } : undefined}
        role="tree"
        aria-label={`${label} tree`}
        tabIndex={0}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = rows[item.index];
            const isHit = hitIds.has(row.id);
            return (
              <div
                key={row.id}
                role="treeitem"
                aria-level={row.depth + 1}
                aria-expanded={row.expandable && row.kind !== 'string' ? row.expanded : undefined}
                aria-selected={row.id === selected}
                className={`jt-row${row.id === selected ? ' selected' : ''}${isHit ? ' hit' : ''}`}
                style={{ transform: `translateY(${item.start}px)`, height: ROW, paddingLeft: 6 + row.depth * 14 }}
                onClick={() => setSelected(row.id)}
                onDoubleClick={() => toggle(row)}
              >
                <span
                  className={`jt-twisty${row.expandable ? '' : ' leaf'}`}
                  onClick={() => toggle(row)}
                  aria-hidden="true"
                >
                  {row.expandable ? (row.expanded ? '▾' : '▸') : ''}
                </span>
                {row.label !== undefined && <span className="jt-key">{row.label}</span>}
                {row.label !== undefined && <span className="jt-colon">: </span>}
                <span className={`jt-val jt-${row.kind}`}>{preview(row)}</span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
