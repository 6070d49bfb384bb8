import { create, type Delta } from 'jsondiffpatch';
import { jsonPath, pathText, type Path } from './json-path.js';

/**
 * A structural diff of two JSON values (two exchanges' requests or responses, an exchange and the cassette entry that
 * answered it, a recorded answer and the live one `verify` got): every added, removed and changed value with its path;
 * a changed text that spans lines is also diffed line by line. jsondiffpatch does the matching (LCS over arrays, items
 * matched by name/uri/id where they have one), for the structure and, on arrays of lines, for the text. Pure: the
 * timeline's Diff tab and the CLI's verify and diff use it alike.
 */

export type ChangeKind = 'added' | 'removed' | 'changed';

export interface LineChange {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

export interface Change {
  path: Path;
  /** the path as text: "result.content[0].text" */
  at: string;
  kind: ChangeKind;
  before?: unknown;
  after?: unknown;
  /** a changed text with more than one line: its lines, each kept, added or removed */
  lines?: LineChange[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** items of arrays are matched by what names them (tools, resources, prompts), else by position (content blocks) */
function identity(item: object, index?: number): string {
  const o = item as Record<string, unknown>;
  for (const key of ['id', 'uri', 'name'])
    if (typeof o[key] === 'string' || typeof o[key] === 'number') return `${key}:${String(o[key])}`;
  return `#${index ?? 0}`;
}

const structural = create({ objectHash: identity, arrays: { detectMove: false }, cloneDiffValues: false });
const lineDiffer = create({ arrays: { detectMove: false } });

const isAdded = (d: unknown): d is [unknown] => Array.isArray(d) && d.length === 1;
const isModified = (d: unknown): d is [unknown, unknown] => Array.isArray(d) && d.length === 2;
const isDeleted = (d: unknown): d is [unknown, 0, 0] => Array.isArray(d) && d.length === 3 && d[2] === 0;

/** The lines of two texts, each kept, added or removed, in reading order. */
export function diffLines(before: string, after: string): LineChange[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const delta = lineDiffer.diff(a, b) as Record<string, unknown> | undefined;
  const removed = new Set<number>();
  const added = new Set<number>();
  for (const key of Object.keys(delta ?? {})) {
    if (key === '_t') continue;
    if (key.startsWith('_')) removed.add(Number(key.slice(1)));
    else added.add(Number(key));
  }
  const out: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && removed.has(i)) out.push({ kind: 'removed', text: a[i++] });
    else if (j < b.length && added.has(j)) out.push({ kind: 'added', text: b[j++] });
    else if (i < a.length && j < b.length) {
      out.push({ kind: 'same', text: b[j] });
      i++;
      j++;
    } else if (i < a.length) out.push({ kind: 'removed', text: a[i++] });
    else out.push({ kind: 'added', text: b[j++] });
  }
  return out;
}

function change(path: Path, kind: ChangeKind, before: unknown, after: unknown): Change {
  const c: Change = { path, at: pathText(path) || '(the whole value)', kind };
  if (kind !== 'added') c.before = before;
  if (kind !== 'removed') c.after = after;
  if (
    kind === 'changed' &&
    typeof before === 'string' &&
    typeof after === 'string' &&
    (before.includes('\n') || after.includes('\n'))
  )
    c.lines = diffLines(before, after);
  return c;
}

function walk(delta: Delta, path: Path, out: Change[]): void {
  if (isAdded(delta)) return void out.push(change(path, 'added', undefined, delta[0]));
  if (isModified(delta)) return void out.push(change(path, 'changed', delta[0], delta[1]));
  if (isDeleted(delta)) return void out.push(change(path, 'removed', delta[0], undefined));
  if (!isObject(delta)) return;
  if ((delta as Record<string, unknown>)._t === 'a') {
    // removals carry the old index (`_3`), the rest the new one; listed in index order
    const keys = Object.keys(delta).filter((k) => k !== '_t');
    const index = (k: string): number => Number(k.startsWith('_') ? k.slice(1) : k);
    for (const key of keys.sort((x, y) => index(x) - index(y) || (x.startsWith('_') ? -1 : 1)))
      walk((delta as Record<string, unknown>)[key] as Delta, [...path, index(key)], out);
    return;
  }
  for (const [key, inner] of Object.entries(delta)) walk(inner as Delta, [...path, key], out);
}

/** Every difference from `before` to `after`, with its path; [] when they are equal. */
export function diffValues(before: unknown, after: unknown): Change[] {
  const delta = structural.diff(before, after);
  const out: Change[] = [];
  if (delta !== undefined) walk(delta, [], out);
  return out;
}

/** "3 changed, 1 added, 2 removed" */
export function summary(changes: Change[]): string {
  if (changes.length === 0) return 'identical';
  const count = (kind: ChangeKind): number => changes.filter((c) => c.kind === kind).length;
  return (['changed', 'added', 'removed'] as const)
    .map((kind) => [count(kind), kind] as const)
    .filter(([n]) => n > 0)
    .map(([n, kind]) => `${n} ${kind}`)
    .join(', ');
}

/** One change on one line, as verify and diff print it: `$.result.content[0].text: "a" → "b"`. */
export function changeLine(c: Change, max = 120): string {
  const at = jsonPath(c.path);
  if (c.kind === 'added') return `${at}: added ${brief(c.after, max)}`;
  if (c.kind === 'removed') return `${at}: removed (was ${brief(c.before, max)})`;
  return `${at}: ${brief(c.before, max)} → ${brief(c.after, max)}`;
}

/** A value shortened for one line of the change list. */
export function brief(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
