/**
 * The rows of a collapsible JSON tree, flattened for a virtualised list: only expanded containers contribute their
 * children, big arrays and objects are split into ranges of RANGE_SIZE children (as the Chrome DevTools console does),
 * and long strings are cut until expanded. So a 5 MB result costs the rows on screen, not its size.
 */

export const RANGE_SIZE = 100;
/** strings longer than this show their beginning until expanded */
export const STRING_PREVIEW = 200;
/** an expanded string shows at most this much (copy gives all of it): one row must stay cheap to lay out */
export const STRING_EXPANDED = 20_000;

export type PathPart = string | number;

export interface TreeRow {
  /** unique: the path as JSON, plus the range for range rows */
  id: string;
  depth: number;
  path: PathPart[];
  /** the property name or index shown before the value; undefined for the root */
  label?: string;
  kind: 'object' | 'array' | 'range' | 'string' | 'number' | 'boolean' | 'null';
  value: unknown;
  /** containers and ranges: how many children; strings: their length */
  size: number;
  expandable: boolean;
  expanded: boolean;
  /** range rows: [from, to) of the container's children */
  range?: [number, number];
}

export const pathId = (path: PathPart[]): string => JSON.stringify(path);

/** `result.content[0].text`, or `["a b"]` for keys that are not identifiers. */
export function pathText(path: PathPart[]): string {
  return path
    .map((p, i) =>
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(p)
          ? i === 0
            ? p
            : `.${p}`
          : `[${JSON.stringify(p)}]`,
    )
    .join('');
}

function kindOf(value: unknown): TreeRow['kind'] {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'object'
    ? 'object'
    : t === 'string'
      ? 'string'
      : t === 'number'
        ? 'number'
        : t === 'boolean'
          ? 'boolean'
          : 'string';
}

function entriesOf(value: unknown): Array<[PathPart, unknown]> {
  if (Array.isArray(value)) return value.map((v, i) => [i, v]);
  return Object.entries(value as Record<string, unknown>);
}

/**
 * The visible rows. `expanded` holds the ids of expanded containers, ranges (`<id>#<from>`) and long strings. The
 * root is expanded unless `collapsedRoot` says otherwise.
 */
export function flattenTree(root: unknown, expanded: ReadonlySet<string>, rootPath: PathPart[] = []): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (value: unknown, path: PathPart[], depth: number, label: string | undefined): void => {
    const kind = kindOf(value);
    const id = pathId(path);
    if (kind === 'object' || kind === 'array') {
      const entries = entriesOf(value);
      const open = expanded.has(id);
      rows.push({
        id,
        depth,
        path,
        label,
        kind,
        value,
        size: entries.length,
        expandable: entries.length > 0,
        expanded: open,
      });
      if (open) children(entries, path, depth + 1, id);
      return;
    }
    const size = kind === 'string' ? (value as string).length : 0;
    rows.push({
      id,
      depth,
      path,
      label,
      kind,
      value,
      size,
      expandable: size > STRING_PREVIEW,
      expanded: expanded.has(id),
    });
  };
  const children = (entries: Array<[PathPart, unknown]>, path: PathPart[], depth: number, id: string): void => {
    if (entries.length <= RANGE_SIZE) {
      for (const [key, child] of entries) visit(child, [...path, key], depth, String(key));
      return;
    }
    for (let from = 0; from < entries.length; from += RANGE_SIZE) {
      const to = Math.min(entries.length, from + RANGE_SIZE);
      const rangeId = `${id}#${from}`;
      const open = expanded.has(rangeId);
      const slice = entries.slice(from, to);
      const value = typeof slice[0]?.[0] === 'number' ? slice.map(([, v]) => v) : Object.fromEntries(slice);
      rows.push({
        id: rangeId,
        depth,
        path,
        label: `[${from} … ${to - 1}]`,
        kind: 'range',
        value,
        size: to - from,
        expandable: true,
        expanded: open,
        range: [from, to],
      });
      if (open)
        for (let i = from; i < to; i++)
          visit(entries[i][1], [...path, entries[i][0]], depth + 1, String(entries[i][0]));
    }
  };
  visit(root, rootPath, 0, undefined);
  return rows;
}

/** The ids to expand so that a document opens readable: containers down to `depth`, if it is small enough. */
export function initialExpansion(root: unknown, depth = 3, budget = 400): Set<string> {
  const open = new Set<string>([pathId([])]);
  let rows = 0;
  const walk = (value: unknown, path: PathPart[], level: number): void => {
    if (value === null || typeof value !== 'object' || level >= depth) return;
    const entries = entriesOf(value);
    if (entries.length > RANGE_SIZE) return;
    rows += entries.length;
    if (rows > budget) return;
    open.add(pathId(path));
    for (const [k, v] of entries) walk(v, [...path, k], level + 1);
  };
  walk(root, [], 0);
  return open;
}

export interface SearchHit {
  path: PathPart[];
  /** the match is in the key (not the value) */
  inKey: boolean;
}

/** Case-insensitive matches of `query` in keys and primitive values, at most `limit`, in document order. */
export function searchTree(root: unknown, query: string, limit = 1000): SearchHit[] {
  const q = query.trim().toLowerCase();
  const hits: SearchHit[] = [];
  if (!q) return hits;
  const walk = (value: unknown, path: PathPart[]): void => {
    if (hits.length >= limit) return;
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of entriesOf(value)) {
        if (hits.length >= limit) return;
        if (typeof k === 'string' && k.toLowerCase().includes(q)) hits.push({ path: [...path, k], inKey: true });
        walk(v, [...path, k]);
      }
      return;
    }
    if (String(value).toLowerCase().includes(q)) hits.push({ path, inKey: false });
  };
  walk(root, []);
  return hits;
}

/** The ids to expand so that `path` is visible (its ancestors, and the ranges that hold it). */
export function revealPath(root: unknown, path: PathPart[]): string[] {
  const ids: string[] = [];
  let value = root;
  for (let i = 0; i < path.length; i++) {
    const here = path.slice(0, i);
    ids.push(pathId(here));
    const entries = value !== null && typeof value === 'object' ? entriesOf(value) : [];
    if (entries.length > RANGE_SIZE) {
      const index = Array.isArray(value) ? (path[i] as number) : entries.findIndex(([k]) => k === path[i]);
      ids.push(`${pathId(here)}#${Math.floor(index / RANGE_SIZE) * RANGE_SIZE}`);
    }
    value = (value as Record<string, unknown>)?.[path[i] as string];
  }
  return ids;
}

/** A one-line preview of a value: `{ 3 keys }`, `[ 12 items ]`, a cut string. */
export function preview(row: TreeRow): string {
  switch (row.kind) {
    case 'object':
      return `{ ${row.size} key${row.size === 1 ? '' : 's'} }`;
    case 'array':
      return `[ ${row.size} item${row.size === 1 ? '' : 's'} ]`;
    case 'range':
      return `${row.size} items`;
    case 'string': {
      const s = row.value as string;
      const shown = row.expanded ? STRING_EXPANDED : STRING_PREVIEW;
      return s.length <= shown
        ? JSON.stringify(s)
        : `${JSON.stringify(s.slice(0, shown))} … (${s.length.toLocaleString('en')} characters)`;
    }
    default:
      return String(row.value);
  }
}
