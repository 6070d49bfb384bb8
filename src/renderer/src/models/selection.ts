/**
 * Multi-select in the timeline, as in file managers and DevTools: a click picks one row, Ctrl/Cmd-click adds or
 * removes one, Shift-click (and Shift+arrows) picks the range from the anchor. Pure: rows are given by index.
 */

export type PickMode = 'only' | 'toggle' | 'range';

export interface Picked<K> {
  keys: ReadonlySet<K>;
  /** where a range starts: the last row picked alone or toggled */
  anchor?: K;
}

/**
 * The selection after picking row `index` (key `key`) in `mode`; `indexOf` finds a key's row, `keyAt` a row's key
 * (undefined for rows that are not exchanges: group heads).
 */
export function pick<K>(
  current: Picked<K>,
  key: K,
  mode: PickMode,
  rows: { count: number; indexOf(key: K): number; keyAt(index: number): K | undefined },
): Picked<K> {
  if (mode === 'only') return { keys: new Set([key]), anchor: key };
  if (mode === 'toggle') {
    const keys = new Set(current.keys);
    if (keys.has(key)) keys.delete(key);
    else keys.add(key);
    return { keys, anchor: key };
  }
  const anchor = current.anchor !== undefined && rows.indexOf(current.anchor) >= 0 ? current.anchor : key;
  const a = rows.indexOf(anchor);
  const b = rows.indexOf(key);
  if (a < 0 || b < 0) return { keys: new Set([key]), anchor: key };
  const keys = new Set<K>();
  for (let i = Math.min(a, b); i <= Math.max(a, b); i++) {
    const k = rows.keyAt(i);
    if (k !== undefined) keys.add(k);
  }
  return { keys, anchor };
}

/** the mode a click or a key means: Shift for a range, Ctrl or Cmd to add or remove one */
export const pickMode = (e: { shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }): PickMode =>
  e.shiftKey ? 'range' : e.ctrlKey || e.metaKey ? 'toggle' : 'only';
