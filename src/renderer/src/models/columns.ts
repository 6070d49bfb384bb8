import { TIMELINE_COLUMNS, type TimelineColumnId, type TimelineColumns } from '../../../shared/settings.js';
import { SEVERITIES, worstSeverity } from '../../../shared/insight/findings.js';
import { exchangeSizes, sourceLabel, statusLabel, type ExchangeLike } from './exchange-facts.js';

/**
 * The Timeline table's columns as data: what each is called, how wide it starts, how it sorts; and the pure layout
 * and sort functions over the user's choice (kept in the settings: order, hidden, widths, sort). No React.
 */

export interface ColumnDef {
  id: TimelineColumnId;
  label: string;
  /** the name in the column menu (and the header's accessible name) when the label is a mark: `ms (duration)` */
  menuLabel?: string;
  /** what the header's title and the column menu say */
  title: string;
  /** starting width (px) and the least it may be dragged to */
  width: number;
  min: number;
  /** numbers, right-aligned */
  num?: boolean;
  /** the identifying number: always shown, sized to the widest number, never cut */
  fixed?: boolean;
  /** the value the column sorts by (numbers, else strings compared in any case) */
  sortValue(e: ExchangeLike, names: SortNames): number | string;
}

/** what a sort needs besides the exchange */
export interface SortNames {
  proxyName(id: string): string;
  flags(e: ExchangeLike): string;
}

export const COLUMN_DEFS: readonly ColumnDef[] = [
  {
    id: 'seq',
    label: '#',
    title: 'the timeline number (request order)',
    width: 56,
    min: 40,
    num: true,
    fixed: true,
    sortValue: (e) => e.seq,
  },
  { id: 'time', label: 'Time', title: 'when the request came in', width: 110, min: 60, sortValue: (e) => e.startedAt },
  {
    id: 'proxy',
    label: 'Proxy',
    title: 'the proxy (or opened file) and the MCP session',
    width: 130,
    min: 50,
    sortValue: (e, n) => n.proxyName(e.proxyId),
  },
  { id: 'method', label: 'Method', title: 'the JSON-RPC method', width: 130, min: 50, sortValue: (e) => e.method },
  { id: 'tool', label: 'Tool', title: 'the tool of a tools/call', width: 120, min: 40, sortValue: (e) => e.tool ?? '' },
  {
    id: 'source',
    label: 'Source',
    title: 'who answered: upstream, cache, proxy (and the rule)',
    width: 100,
    min: 50,
    sortValue: (e) => sourceLabel(e),
  },
  {
    id: 'status',
    label: 'Status',
    title: 'ok, tool error, error <code>, pending',
    width: 85,
    min: 45,
    sortValue: (e) => statusLabel(e),
  },
  {
    id: 'problems',
    label: '⚠',
    menuLabel: '⚠ problems',
    title: 'protocol problems and security warnings (how many; the colour: the worst)',
    width: 44,
    min: 32,
    num: true,
    sortValue: problemRank,
  },
  {
    id: 'tokens',
    label: 'tok',
    menuLabel: 'tok (tokens)',
    title: 'tokens this exchange puts in the model’s context (o200k_base)',
    width: 55,
    min: 36,
    num: true,
    sortValue: (e) => e.insight?.tokens ?? -1,
  },
  {
    id: 'duration',
    label: 'ms',
    menuLabel: 'ms (duration)',
    title: 'milliseconds to the answer',
    width: 55,
    min: 36,
    num: true,
    sortValue: (e) => (e.response ? e.durationMs : Number.MAX_SAFE_INTEGER), // pending last
  },
  {
    id: 'size',
    label: 'Size',
    title: 'request / answer bytes (JSON)',
    width: 110,
    min: 50,
    num: true,
    sortValue: (e) => exchangeSizes(e).total,
  },
  {
    id: 'revision',
    label: 'Revision',
    title: 'the MCP protocol revision of the session',
    width: 90,
    min: 50,
    sortValue: (e) => e.protocolVersion ?? '',
  },
  {
    id: 'flags',
    label: 'Flags',
    title: 'changed, sent by the app, the engine’s flags, the note',
    width: 120,
    min: 40,
    sortValue: (e, n) => n.flags(e),
  },
];

/** the worst severity first, then how many: a sort by ⚠ puts the errors at one end */
function problemRank(e: ExchangeLike): number {
  const problems = e.insight?.problems ?? [];
  const worst = worstSeverity(problems);
  return worst === undefined ? 0 : (SEVERITIES.length - SEVERITIES.indexOf(worst)) * 100_000 + problems.length;
}

const BY_ID = new Map(COLUMN_DEFS.map((c) => [c.id as string, c]));
export const columnDef = (id: string): ColumnDef | undefined => BY_ID.get(id);

export const DEFAULT_COLUMNS: TimelineColumns = {
  order: [...TIMELINE_COLUMNS],
  hidden: ['revision'],
  widths: {},
  sort: null,
};

/**
 * The few columns the table keeps beside an open detail (as DevTools' Network panel keeps the Name only): what tells
 * the rows apart; the detail says the rest. The user's order and hidden columns still apply.
 */
export const BESIDE_DETAIL: readonly TimelineColumnId[] = [
  'seq',
  'method',
  'tool',
  'status',
  'problems',
  'duration',
  'flags',
];

/**
 * The columns shown, in order: the ids the settings name that exist, then any column the settings do not know yet;
 * `besideDetail`: only those of BESIDE_DETAIL.
 */
export function visibleColumns(settings: TimelineColumns | undefined, besideDetail = false): ColumnDef[] {
  if (besideDetail) return visibleColumns(settings).filter((c) => BESIDE_DETAIL.includes(c.id));
  const s = settings ?? DEFAULT_COLUMNS;
  const order = [
    ...s.order.filter((id) => BY_ID.has(id)),
    ...COLUMN_DEFS.map((c) => c.id).filter((id) => !s.order.includes(id)),
  ];
  const unique = [...new Set(order)];
  return unique.map((id) => BY_ID.get(id) as ColumnDef).filter((c) => c.fixed || !s.hidden.includes(c.id));
}

/** Every column in the settings' order, with whether it is shown (for the column menu). */
export function allColumns(settings: TimelineColumns | undefined): Array<{ def: ColumnDef; shown: boolean }> {
  const s = settings ?? DEFAULT_COLUMNS;
  const order = [...new Set([...s.order.filter((id) => BY_ID.has(id)), ...COLUMN_DEFS.map((c) => c.id)])];
  return order.map((id) => {
    const def = BY_ID.get(id) as ColumnDef;
    return { def, shown: def.fixed === true || !s.hidden.includes(id) };
  });
}

/** The settings with a column shown or hidden (the identifying number stays). */
export function toggleColumn(settings: TimelineColumns, id: string): TimelineColumns {
  if (columnDef(id)?.fixed) return settings;
  const hidden = settings.hidden.includes(id) ? settings.hidden.filter((h) => h !== id) : [...settings.hidden, id];
  const sort = settings.sort?.column === id && hidden.includes(id) ? null : settings.sort;
  return { ...settings, hidden, sort };
}

/** The settings with column `id` moved before another one ('': to the end), or one place left or right among the shown ones. */
export function moveColumn(
  settings: TimelineColumns,
  id: string,
  to: { before: string } | { by: -1 | 1 },
): TimelineColumns {
  const order = allColumns(settings)
    .map((c) => c.def.id as string)
    .filter((c) => c !== id);
  let at: number;
  if ('before' in to) {
    if (to.before === id || (to.before !== '' && !order.includes(to.before))) return settings;
    at = to.before === '' ? order.length : order.indexOf(to.before);
  } else {
    const shown = visibleColumns(settings).map((c) => c.id as string);
    const neighbour = shown[shown.indexOf(id) + to.by];
    if (neighbour === undefined || !shown.includes(id)) return settings;
    at = order.indexOf(neighbour) + (to.by > 0 ? 1 : 0);
  }
  order.splice(at, 0, id);
  return { ...settings, order };
}

/** Header clicks cycle a column's sort: ascending, descending, back to request order. */
export function nextSort(settings: TimelineColumns, id: string): TimelineColumns {
  const sort = settings.sort;
  if (sort?.column !== id) return { ...settings, sort: { column: id, desc: false } };
  return { ...settings, sort: sort.desc ? null : { column: id, desc: true } };
}

/**
 * Pixel widths that fill `available`: the identifying number as wide as its text needs (`fixedWidth`), the others
 * sharing the rest in proportion to their widths (as dragged, else their starting ones), none below its minimum
 * (then the table is wider than its pane and scrolls sideways).
 */
export function layoutWidths(
  cols: ColumnDef[],
  widths: Record<string, number>,
  available: number,
  fixedWidth: number,
): number[] {
  const weights = cols.map((c) => (c.fixed ? 0 : (widths[c.id] ?? c.width)));
  const rest = Math.max(0, available - cols.reduce((n, c) => n + (c.fixed ? fixedWidth : 0), 0));
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  return cols.map((c, i) => (c.fixed ? fixedWidth : Math.max(c.min, Math.floor((weights[i] / total) * rest))));
}

/** A drag of the edge between column `i` and the next by `dx` px: one grows, the next gives it the room. */
export function dragWidths(cols: ColumnDef[], px: number[], i: number, dx: number): number[] {
  const next = px.slice();
  const j = i + 1 < cols.length && !cols[i + 1].fixed ? i + 1 : -1;
  const grow = Math.max(cols[i].min - px[i], j >= 0 ? Math.min(dx, px[j] - cols[j].min) : dx);
  next[i] = px[i] + grow;
  if (j >= 0) next[j] = px[j] - grow;
  return next;
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** The rows in the sort's order (stable: ties keep request order); the same array when unsorted. */
export function sortRows<T extends ExchangeLike>(rows: T[], sort: TimelineColumns['sort'], names: SortNames): T[] {
  const def = sort && columnDef(sort.column);
  if (!def || !sort) return rows;
  const keyed = rows.map((row, index) => ({ row, index, key: def.sortValue(row, names) }));
  const dir = sort.desc ? -1 : 1;
  keyed.sort((a, b) => {
    const x = a.key;
    const y = b.key;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return c !== 0 ? c * dir : a.index - b.index;
  });
  return keyed.map((k) => k.row);
}
