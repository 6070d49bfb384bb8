import { visibleName } from '../../models/visible-text.js';
import { Name } from '../../components/Name.js';
import { useMemo, useState, type JSX } from 'react';
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  useReactTable,
  type SortingState,
} from '@tanstack/react-table';
import type { CassetteEntrySummary } from '../../../../shared/api.js';

type Usage = 'all' | 'used' | 'unused';

const column = createColumnHelper<CassetteEntrySummary>();

function compact(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value);
  return text.length > 80 ? text.slice(0, 79) + '…' : text;
}

/** "17:47:42" today, "11-29 17:47" this year, "2025-11-29" before (the full time is the cell's tooltip) */
function when(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number): string => String(n).padStart(2, '0');
  const now = new Date();
  if (d.getFullYear() !== now.getFullYear()) return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  if (d.getMonth() !== now.getMonth() || d.getDate() !== now.getDate())
    return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** the column's class (its width), and `num` where numbers align right */
function cellClass(id: string, meta: unknown): string {
  const extra = (meta as { className?: string } | undefined)?.className;
  return extra ? `col-${id} ${extra}` : `col-${id}`;
}

/** the full text of a cell, for its tooltip where the column cuts it */
function fullText(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? visibleName(value) : undefined;
}

const columns = [
  column.accessor('n', { header: '#', cell: (c) => c.getValue(), meta: { className: 'num' } }),
  column.accessor('key', {
    header: 'Key',
    cell: (c) => (
      <code className="key">
        <Name value={c.getValue()} />
      </code>
    ),
  }),
  column.accessor((e) => e.tool ?? e.method ?? '', {
    id: 'tool',
    header: 'Tool',
    cell: (c) => <Name value={c.getValue()} />,
  }),
  column.accessor((e) => compact(e.arguments), {
    id: 'arguments',
    header: 'Arguments',
    cell: (c) => <code>{c.getValue()}</code>,
  }),
  column.accessor('preview', { header: 'Result' }),
  column.accessor('recordedAt', { header: 'Recorded', cell: (c) => when(c.getValue()), enableGlobalFilter: false }),
  column.accessor('hits', {
    header: 'Hits',
    cell: (c) => c.getValue(),
    meta: { className: 'num' },
    enableGlobalFilter: false,
  }),
];

interface Props {
  entries: CassetteEntrySummary[];
  selected?: string;
  onSelect(file: string): void;
}

/** The folder's entries: filter by text and by use in the last run (hits > 0 vs never matched), sortable. */
export function EntriesTable({ entries, selected, onSelect }: Props): JSX.Element {
  const [filter, setFilter] = useState('');
  const [usage, setUsage] = useState<Usage>('all');
  const [sorting, setSorting] = useState<SortingState>([]);
  const used = entries.filter((e) => e.hits > 0).length;
  const data = useMemo(
    () => (usage === 'all' ? entries : entries.filter((e) => (usage === 'used' ? e.hits > 0 : e.hits === 0))),
    [entries, usage],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table: the compiler leaves this component unmemoized, as intended
  const table = useReactTable({
    data,
    columns,
    state: { globalFilter: filter, sorting },
    onGlobalFilterChange: setFilter,
    onSortingChange: setSorting,
    globalFilterFn: 'includesString',
    getCoreRowModel: getCoreRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (e) => e.file,
  });
  const rows = table.getRowModel().rows;

  return (
    <div className="entries">
      <div className="toolbar">
        <input
          type="search"
          aria-label="Filter entries"
          placeholder="Filter: key, tool, arguments, result…"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        <div className="usage" role="group" aria-label="Usage">
          {(
            [
              ['all', `All ${entries.length}`],
              ['used', `Used by the last run ${used}`],
              ['unused', `Never matched ${entries.length - used}`],
            ] as const
          ).map(([id, label]) => (
            <button key={id} type="button" aria-pressed={usage === id} onClick={() => setUsage(id)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <div className="table-scroll">
        <table className="grid" aria-label="Cassette entries">
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((h) => (
                  <th
                    key={h.id}
                    className={cellClass(h.column.id, h.column.columnDef.meta)}
                    aria-sort={
                      h.column.getIsSorted() === 'asc'
                        ? 'ascending'
                        : h.column.getIsSorted() === 'desc'
                          ? 'descending'
                          : undefined
                    }
                  >
                    <button type="button" className="sort" onClick={h.column.getToggleSortingHandler()}>
                      {flexRender(h.column.columnDef.header, h.getContext())}
                      {{ asc: ' ▲', desc: ' ▼' }[h.column.getIsSorted() as string] ?? ''}
                    </button>
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.id}
                aria-selected={row.id === selected}
                className={row.original.hits > 0 ? 'used' : 'unused'}
                tabIndex={0}
                onClick={() => onSelect(row.id)}
                onKeyDown={(e) => e.key === 'Enter' && onSelect(row.id)}
              >
                {row.getVisibleCells().map((cell) => (
                  <td
                    key={cell.id}
                    className={cellClass(cell.column.id, cell.column.columnDef.meta)}
                    title={fullText(cell.getValue())}
                  >
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && (
          <p className="muted">{entries.length === 0 ? 'No entries in this folder yet.' : 'No entry matches.'}</p>
        )}
      </div>
    </div>
  );
}
