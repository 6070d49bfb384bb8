import type { JSX } from 'react';
import { preview, type TreeRow } from '../../../models/json-tree.js';

export const TREE_ROW_HEIGHT = 22;

interface Props {
  row: TreeRow;
  /** where the row sits in the scrolled list (px) */
  start: number;
  selected: boolean;
  hit: boolean;
  select(): void;
  toggle(): void;
}

/** one row of the JSON tree: its twisty, key and value's preview */
export function JsonTreeRow({ row, start, selected, hit, select, toggle }: Props): JSX.Element {
  return (
    <div
      role="treeitem"
      aria-level={row.depth + 1}
      aria-expanded={row.expandable && row.kind !== 'string' ? row.expanded : undefined}
      aria-selected={selected}
      className={`jt-row${selected ? ' selected' : ''}${hit ? ' hit' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: TREE_ROW_HEIGHT, paddingLeft: 6 + row.depth * 14 }}
      onClick={select}
      onDoubleClick={toggle}
    >
      <span className={`jt-twisty${row.expandable ? '' : ' leaf'}`} onClick={toggle} aria-hidden="true">
        {row.expandable ? (row.expanded ? '▾' : '▸') : ''}
      </span>
      {row.label !== undefined && <span className="jt-key">{row.label}</span>}
      {row.label !== undefined && <span className="jt-colon">: </span>}
      <span className={`jt-val jt-${row.kind}`}>{preview(row)}</span>
    </div>
  );
}
