import type { JSX } from 'react';
import type { TimelineColumns } from '../../../../../shared/settings.js';
import { Menu } from '../../../components/Menu.js';
import {
  BESIDE_DETAIL,
  DEFAULT_COLUMNS,
  allColumns,
  columnDef,
  moveColumn,
  toggleColumn,
} from '../../../models/columns.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';

/**
 * The column menu (the Columns button, or a header's context menu): show or hide each column, and for the column it
 * was opened on, sort it or move it; Reset columns goes back to the defaults.
 */
export function ColumnMenu({
  settings,
  save,
  besideDetail,
}: {
  settings: TimelineColumns;
  save(next: TimelineColumns): void;
  /** the detail is open beside the table, which shows only the columns of BESIDE_DETAIL meanwhile */
  besideDetail?: boolean;
}): JSX.Element | null {
  const at = useTimelineUi((s) => s.columnMenu);
  const open = useTimelineUi((s) => s.openColumnMenu);
  if (!at) return null;
  const close = (): void => open(undefined);
  const target = at.column ? columnDef(at.column) : undefined;
  const sorted = settings.sort;
  const act = (next: TimelineColumns): void => {
    save(next);
    close();
  };
  return (
    <Menu
      label="Columns"
      onClose={close}
      className="column-menu"
      style={{
        position: 'fixed',
        left: Math.max(4, Math.min(at.x, window.innerWidth - 250)),
        ...(at.up ? { bottom: window.innerHeight - at.y + 2 } : { top: at.y }),
        maxHeight: at.up ? at.y - 8 : window.innerHeight - at.y - 8,
        overflowY: 'auto',
      }}
    >
      {allColumns(settings).map(({ def, shown }) => (
        <button
          key={def.id}
          type="button"
          role="menuitemcheckbox"
          aria-checked={shown}
          disabled={def.fixed}
          title={def.fixed ? 'the timeline number is always shown' : def.title}
          onClick={() => save(toggleColumn(settings, def.id))}
        >
          <span aria-hidden="true">{shown ? '☑' : '☐'}</span> {def.menuLabel ?? def.label}
        </button>
      ))}
      <hr role="separator" />
      {target && (
        <>
          <button
            type="button"
            role="menuitem"
            onClick={() => act({ ...settings, sort: { column: target.id, desc: false } })}
          >
            Sort by {target.label} ascending
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={() => act({ ...settings, sort: { column: target.id, desc: true } })}
          >
            Sort by {target.label} descending
          </button>
          <button type="button" role="menuitem" onClick={() => act(moveColumn(settings, target.id, { by: -1 }))}>
            Move {target.label} left
          </button>
          <button type="button" role="menuitem" onClick={() => act(moveColumn(settings, target.id, { by: 1 }))}>
            Move {target.label} right
          </button>
        </>
      )}
      {sorted && (
        <button type="button" role="menuitem" onClick={() => act({ ...settings, sort: null })}>
          Request order (no sort)
        </button>
      )}
      <button type="button" role="menuitem" onClick={() => act({ ...DEFAULT_COLUMNS })}>
        Reset columns
      </button>
      {besideDetail && (
        <p className="muted small column-menu-note">
          Beside the open detail the table shows only{' '}
          {BESIDE_DETAIL.map((id) => columnDef(id)?.menuLabel ?? columnDef(id)?.label).join(', ')}.
        </p>
      )}
    </Menu>
  );
}
