import type { DiffRuleId } from '../../../shared/gate/diff-rules.js';
import { canonicalJson } from './keys.js';

/**
 * How a tool changed between two recordings, rated for the clients that call it. A schema that accepts less
 * (narrowed) breaks a caller of an input schema; one that promises less (widened) breaks a reader of an output
 * schema. Rated per JSON Schema keyword: `properties` (a removed property breaks either way; a new one breaks an
 * input only when it is required), `required`, `type` and `enum` (values removed narrow, added widen), the numeric
 * bounds (`minimum`, `maxLength`, …), `additionalProperties`, and `items` and each property recursively. Annotations
 * (`description`, `title`, `examples`, `default`, …) are compatible; any other keyword that changed cannot be told
 * narrower or wider and is rated breaking, to be looked at. `integer` is a kind of `number`: number → integer narrows
 * and integer → number widens, each one change. Every change is rated once, here, with its rule (shared/gate/
 * diff-rules.ts); what diff prints and counts comes from these. Pure.
 */

export type Rating = 'breaking' | 'compatible';

export interface SchemaChange {
  /** where, from the tool: `inputSchema.properties.lang` */
  at: string;
  /** what changed, in words */
  what: string;
  rating: Rating;
  /** the gate's rule for it (diff.input-narrowed, …): the one classification the lines, totals and SARIF use */
  rule: DiffRuleId;
}

type Schema = Record<string, unknown>;
type Direction = 'input' | 'output';

const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'default',
  '$comment',
  '$schema',
  '$id',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);
/** keywords rated here (the rest: annotations, or unknown) */
const RATED = new Set([
  'properties',
  'required',
  'type',
  'enum',
  'additionalProperties',
  'items',
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
]);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const quoted = (values: unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');
const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** A narrowing breaks an input's callers; a widening an output's readers. */
const rate = (direction: Direction, narrows: boolean): Rating =>
  narrows === (direction === 'input') ? 'breaking' : 'compatible';

const RULE_OF: Record<Direction, Record<'narrows' | 'widens', DiffRuleId>> = {
  input: { narrows: 'diff.input-narrowed', widens: 'diff.input-widened' },
  output: { narrows: 'diff.output-narrowed', widens: 'diff.output-widened' },
};

/** A change that narrows (accepts or promises less) or widens the schema, rated for its direction. */
const rated = (at: string, what: string, direction: Direction, narrows: boolean): SchemaChange => ({
  at,
  what,
  rating: rate(direction, narrows),
  rule: RULE_OF[direction][narrows ? 'narrows' : 'widens'],
});
const unclear = (at: string): SchemaChange => ({
  at,
  what: 'changed; cannot tell whether it narrows',
  rating: 'breaking',
  rule: 'diff.schema-unclear',
});
const annotation = (at: string, what: string): SchemaChange => ({
  at,
  what,
  rating: 'compatible',
  rule: 'diff.tool-annotation',
});

type Add = (at: string, what: string, narrows: boolean) => void;

/** The changes from one schema to another, rated (an empty list when they are the same). */
export function diffSchema(before: unknown, after: unknown, direction: Direction, at: string): SchemaChange[] {
  if (same(before, after)) return [];
  if (!isSchema(before) || !isSchema(after)) {
    if (before === undefined) return [rated(at, 'schema added', direction, true)];
    if (after === undefined) return [rated(at, 'schema removed', direction, false)];
    return [unclear(at)];
  }
  const out: SchemaChange[] = [];
  const add: Add = (where, what, narrows) => void out.push(rated(where, what, direction, narrows));
  diffProperties(before, after, direction, at, out);
  diffRequired(before, after, at, add);
  diffTypes(before.type, after.type, direction, at, add);
  diffValues('enum', before.enum, after.enum, at, add);
  diffBounds(before, after, at, add);
  diffAdditional(before, after, direction, at, out);
  if (!same(before.items, after.items)) out.push(...diffSchema(before.items, after.items, direction, `${at}.items`));
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (RATED.has(key) || same(before[key], after[key])) continue;
    out.push(ANNOTATIONS.has(key) ? annotation(`${at}.${key}`, `${key} changed`) : unclear(`${at}.${key}`));
  }
  return out;
}

function diffProperties(before: Schema, after: Schema, direction: Direction, at: string, out: SchemaChange[]): void {
  const was = isSchema(before.properties) ? before.properties : {};
  const now = isSchema(after.properties) ? after.properties : {};
  const required = new Set(list(after.required));
  for (const name of Object.keys(was)) {
    // a removed property breaks either way: an input accepts less, an output promises less
    if (!Object.hasOwn(now, name))
      out.push(rated(`${at}.properties.${name}`, 'property removed', direction, direction === 'input'));
    else out.push(...diffSchema(was[name], now[name], direction, `${at}.properties.${name}`));
  }
  for (const name of Object.keys(now)) {
    if (Object.hasOwn(was, name)) continue;
    const needed = required.has(name);
    // a new optional field is compatible either way: an input accepts more, an output promises more
    const narrows = needed || direction === 'output';
    const where = `${at}.properties.${name}`;
    out.push(rated(where, needed ? 'new required field' : 'new optional field', direction, narrows));
  }
}

function diffRequired(before: Schema, after: Schema, at: string, add: Add): void {
  const was = new Set(list(before.required));
  const now = new Set(list(after.required));
  const wasProps = isSchema(before.properties) ? before.properties : {};
  // a new property that is required was rated with the property; here only fields that were there before
  const newlyRequired = [...now].filter((f) => !was.has(f) && Object.hasOwn(wasProps, String(f)));
  const noLonger = [...was].filter(
    (f) => !now.has(f) && Object.hasOwn(isSchema(after.properties) ? after.properties : {}, String(f)),
  );
  if (newlyRequired.length) add(`${at}.required`, `now required: ${quoted(newlyRequired)}`, true);
  if (noLonger.length) add(`${at}.required`, `no longer required: ${quoted(noLonger)}`, false);
}

/** `enum`: values removed narrow, values added widen; a keyword added narrows, removed widens. */
function diffValues(key: string, before: unknown, after: unknown, at: string, add: Add): void {
  if (same(before, after)) return;
  if (before === undefined) return add(`${at}.${key}`, `${key} ${quoted(list(after))} added`, true);
  if (after === undefined) return add(`${at}.${key}`, `${key} removed (was ${quoted(list(before))})`, false);
  const was = list(before).map(canonicalJson);
  const now = list(after).map(canonicalJson);
  const removed = list(before).filter((_, i) => !now.includes(was[i]));
  const added = list(after).filter((_, i) => !was.includes(now[i]));
  if (removed.length) add(`${at}.${key}`, `${key} narrowed: ${quoted(removed)} removed`, true);
  if (added.length) add(`${at}.${key}`, `${key} widened: ${quoted(added)} added`, false);
}

/** Does a `type` list accept every value of this type? (`number` accepts every `integer`.) */
const accepts = (types: unknown[], type: unknown): boolean =>
  types.includes(type) || (type === 'integer' && types.includes('number'));

/**
 * `type`: a type no longer accepted narrows, a type newly accepted widens — `integer` counted inside `number`, so
 * number → integer is one narrowing (not a narrowing and a widening) and integer → number one widening.
 */
function diffTypes(before: unknown, after: unknown, direction: Direction, at: string, add: Add): void {
  if (same(before, after)) return;
  if (before === undefined || after === undefined) return diffValues('type', before, after, at, add);
  const [was, now] = [list(before), list(after)];
  const lost = was.filter((t) => !accepts(now, t));
  const gained = now.filter((t) => !accepts(was, t));
  const change = `${quoted(was)} → ${quoted(now)}`;
  // both at once (string → number): one change, which breaks either way — callers lose a type, readers get a new one
  if (lost.length && gained.length) add(`${at}.type`, `type changed: ${change}`, direction === 'input');
  else if (lost.length) add(`${at}.type`, `type narrowed: ${change}`, true);
  else if (gained.length) add(`${at}.type`, `type widened: ${change}`, false);
}

function diffBounds(before: Schema, after: Schema, at: string, add: Add): void {
  for (const key of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
    const [was, now] = [before[key], after[key]];
    if (same(was, now)) continue;
    const lower = LOWER_BOUNDS.has(key);
    let narrows: boolean;
    if (was === undefined) narrows = true;
    else if (now === undefined) narrows = false;
    else if (typeof was === 'number' && typeof now === 'number') narrows = lower ? now > was : now < was;
    else narrows = true; // not a number (exclusiveMinimum: true in draft-04): cannot tell, look at it
    add(`${at}.${key}`, `${key} ${String(was ?? 'none')} → ${String(now ?? 'none')}`, narrows);
  }
}

function diffAdditional(before: Schema, after: Schema, direction: Direction, at: string, out: SchemaChange[]): void {
  const [was, now] = [before.additionalProperties, after.additionalProperties];
  if (same(was, now)) return;
  const open = (v: unknown): boolean => v === undefined || v === true;
  if (open(was) && now === false)
    out.push(rated(`${at}.additionalProperties`, 'other properties no longer allowed', direction, true));
  else if (was === false && open(now))
    out.push(rated(`${at}.additionalProperties`, 'other properties now allowed', direction, false));
  else
    out.push(
      ...diffSchema(isSchema(was) ? was : {}, isSchema(now) ? now : {}, direction, `${at}.additionalProperties`),
    );
}

type Tool = Record<string, unknown> & { name: string };

export interface ToolChange {
  tool: string;
  change: 'added' | 'removed' | 'changed';
  /** the worst rating of its details (added: compatible, removed: breaking) */
  rating: Rating;
  /** added and removed tools: diff.tool-added, diff.tool-removed (a changed tool's rules are its details') */
  rule?: DiffRuleId;
  details: SchemaChange[];
}

/** Tools added (compatible), removed (breaking) and changed (rated per change) from one list to another. */
export function diffToolLists(before: readonly Tool[], after: readonly Tool[]): ToolChange[] {
  const now = new Map(after.map((t) => [t.name, t]));
  const was = new Map(before.map((t) => [t.name, t]));
  const out: ToolChange[] = [];
  for (const [name, tool] of was) {
    const next = now.get(name);
    if (!next) {
      out.push({ tool: name, change: 'removed', rating: 'breaking', rule: 'diff.tool-removed', details: [] });
      continue;
    }
    const details = [
      ...diffSchema(tool.inputSchema, next.inputSchema, 'input', 'inputSchema'),
      ...diffSchema(tool.outputSchema, next.outputSchema, 'output', 'outputSchema'),
    ];
    for (const key of new Set([...Object.keys(tool), ...Object.keys(next)])) {
      if (key === 'name' || key === 'inputSchema' || key === 'outputSchema' || same(tool[key], next[key])) continue;
      details.push(annotation(key, `${key} changed`));
    }
    if (details.length)
      out.push({
        tool: name,
        change: 'changed',
        rating: details.some((d) => d.rating === 'breaking') ? 'breaking' : 'compatible',
        details,
      });
  }
  for (const name of now.keys())
    if (!was.has(name))
      out.push({ tool: name, change: 'added', rating: 'compatible', rule: 'diff.tool-added', details: [] });
  return out;
}
