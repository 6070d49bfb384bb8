import { EMPTY_FILTER, type TimelineFilter } from './model.js';

/**
 * The Timeline's filter in the URL (`#/timeline?q=tool%3Aecho&status=error`), so that a link opens the same view and
 * back/forward keep it. Pure: parsing and writing the hash; the Timeline keeps the two in step.
 */

type TextField = Exclude<keyof TimelineFilter, 'pinned'>;
const TEXT_FIELDS: Array<[TextField, string]> = [
  ['text', 'q'],
  ['method', 'method'],
  ['tool', 'tool'],
  ['status', 'status'],
  ['source', 'source'],
  ['proxy', 'proxy'],
  ['session', 'session'],
];
const STATUSES = new Set(['', 'ok', 'tool error', 'error', 'pending', 'held']);
const SOURCES = new Set(['', 'upstream', 'cache', 'proxy', 'rule']);

/** the part of a hash after `?` (`#/timeline?q=…` → `q=…`) */
const queryOfHash = (hash: string): string | undefined => {
  const at = hash.indexOf('?');
  return at < 0 ? undefined : hash.slice(at + 1);
};

/** The filter a hash carries (every field: what it does not name is empty), or undefined when it carries none. */
export function filterFromHash(hash: string): TimelineFilter | undefined {
  const query = queryOfHash(hash);
  if (query === undefined) return undefined;
  const params = new URLSearchParams(query);
  const filter: TimelineFilter = { ...EMPTY_FILTER };
  for (const [field, name] of TEXT_FIELDS) {
    const value = params.get(name);
    if (value !== null) (filter as unknown as Record<string, string>)[field] = value.slice(0, 2000);
  }
  if (!STATUSES.has(filter.status)) filter.status = '';
  if (!SOURCES.has(filter.source)) filter.source = '';
  filter.pinned = params.get('pinned') === '1';
  return filter;
}

/** The hash for a view with a filter: only the fields set are written (`#/timeline` when nothing is). */
export function hashWithFilter(view: string, filter: TimelineFilter): string {
  const params = new URLSearchParams();
  for (const [field, name] of TEXT_FIELDS) if (filter[field]) params.set(name, filter[field]);
  if (filter.pinned) params.set('pinned', '1');
  const query = params.toString();
  return query ? `#/${view}?${query}` : `#/${view}`;
}

export const sameFilter = (a: TimelineFilter, b: TimelineFilter): boolean =>
  TEXT_FIELDS.every(([field]) => a[field] === b[field]) && a.pinned === b.pinned;
