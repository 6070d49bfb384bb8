import { useEffect, useRef, useState, type JSX } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { copyText } from '../../../components/clipboard.js';
import { JsonTreeRow, TREE_ROW_HEIGHT } from './JsonTreeRow.js';
import { JsonTreeTools } from './JsonTreeTools.js';
import { onTreeKey, useJsonTree } from './use-json-tree.js';

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
  const tree = useJsonTree(value);
  const { rows, index, selected, setSelected, toggle, hitIds } = tree;
  const [status, setStatus] = useState<string>();
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => TREE_ROW_HEIGHT,
    overscan: 20,
  });
  useEffect(() => {
    const at = index.get(selected);
    if (at !== undefined) virtualizer.scrollToIndex(at, { align: 'auto' });
  }, [selected, index, virtualizer]);

  const copy = (text: string): void => copyText(text, setStatus);
  const current = rows[index.get(selected) ?? 0];
  return (
    <section className="json-tree" aria-label={label}>
      <JsonTreeTools label={label} tree={tree} current={current} copy={copy} status={status} />
      <div
        className="json-rows"
        ref={scroller}
        style={maxHeight ? { maxHeight } : undefined}
        role="tree"
        aria-label={`${label} tree`}
        tabIndex={0}
        onKeyDown={(event) => onTreeKey(event, tree, copy)}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            return (
              <JsonTreeRow
                key={row.id}
                row={row}
                start={item.start}
                selected={row.id === selected}
                hit={hitIds.has(row.id)}
                select={() => setSelected(row.id)}
                toggle={() => toggle(row)}
              />
            );
          })}
        </div>
      </div>
    </section>
  );
}
