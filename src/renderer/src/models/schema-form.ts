/**
 * A form from a JSON Schema (a tool's inputSchema, a prompt's arguments): which fields, of which kind, with their
 * labels, defaults, enums and required marks, and the value the form edits. Pure: no React, no I/O. The value is the
 * JSON the call sends (an optional field left empty is absent, not ""); what the form cannot express (oneOf/anyOf
 * choices, maps, tuples, recursive references) is a raw-JSON field for that part, saying why. Validation is the
 * engine's (ajv, `schema.check`), whose problems name the same paths as `pathText`.
 */
import { pathText, type Path } from '../../../shared/json-path.js';

export { pathText, type Path };
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'array' | 'json';

export interface Field {
  path: Path;
  /** property name, or the index for an array item */
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  default?: unknown;
  /** enum: the allowed values */
  options?: unknown[];
  /** string: date, date-time, email, uri… (shown as a hint; the engine checks it) */
  format?: string;
  /** the value may also be null */
  nullable?: boolean;
  /** object: its properties, in the schema's order */
  fields?: Field[];
  /** array: the field every item is (its path ends in the item's index when shown) */
  item?: Field;
  /** json: why the form gives this part as raw JSON */
  reason?: string;
}

type Schema = Record<string, unknown>;
const MAX_DEPTH = 12;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A local `$ref` (#/$defs/X, #/definitions/X) resolved against the root schema. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/'))
    at = isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return isObject(at) ? at : undefined;
}

/** `anyOf: [X, {type: 'null'}]` (what zod writes for a nullable field) → X, nullable */
function unwrapNullable(schema: Schema): { schema: Schema; nullable: boolean } {
  const choices = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(choices) && choices.length === 2) {
    const nonNull = choices.filter((c) => !(isObject(c) && c.type === 'null'));
    if (nonNull.length === 1 && isObject(nonNull[0])) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return { schema: { ...rest, ...nonNull[0] }, nullable: true };
    }
  }
  const type = schema.type;
  if (Array.isArray(type) && type.includes('null') && type.length === 2)
    return { schema: { ...schema, type: type.find((t) => t !== 'null') }, nullable: true };
  return { schema, nullable: false };
}

function build(
  root: Schema,
  raw: unknown,
  path: Path,
  name: string,
  required: boolean,
  depth: number,
  refs: string[],
): Field {
  let schema: Schema = isObject(raw) ? raw : {};
  const ref = typeof schema.$ref === 'string' ? schema.$ref : undefined;
  if (ref) {
    const target = resolveRef(root, ref);
    if (!target || refs.includes(ref) || depth > MAX_DEPTH)
      return json(
        schema,
        path,
        name,
        required,
        target ? 'a recursive schema' : `a reference the form cannot follow (${ref})`,
      );
    const { $ref: _r, ...rest } = schema;
    return build(root, { ...target, ...rest }, path, name, required, depth, [...refs, ref]);
  }
  const { schema: s, nullable } = unwrapNullable(schema);
  schema = s;
  const base = {
    path,
    name,
    label: typeof schema.title === 'string' && schema.title ? schema.title : name,
    required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...('default' in schema ? { default: schema.default } : {}),
    ...(nullable ? { nullable } : {}),
  };
  if (depth > MAX_DEPTH) return json(schema, path, name, required, 'nested too deep for a form');
  if (Array.isArray(schema.enum)) return { ...base, kind: 'enum', options: schema.enum };
  if ('const' in schema) return { ...base, kind: 'enum', options: [schema.const] };
  for (const keyword of ['oneOf', 'anyOf', 'allOf', 'not', 'if'])
    if (keyword in schema)
      return json(schema, path, name, required, `“${keyword}” (a choice of shapes): give it as JSON`);
  const type = Array.isArray(schema.type)
    ? undefined
    : ((schema.type as string | undefined) ?? (isObject(schema.properties) ? 'object' : undefined));
  switch (type) {
    case 'string':
      return { ...base, kind: 'string', ...(typeof schema.format === 'string' ? { format: schema.format } : {}) };
    case 'number':
    case 'integer':
    case 'boolean':
      return { ...base, kind: type };
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const names = Object.keys(properties);
      if (
        names.length === 0 &&
        ((schema.additionalProperties !== undefined && schema.additionalProperties !== false) ||
          isObject(schema.patternProperties))
      ) {
        return json(schema, path, name, required, 'a map of free keys: give it as JSON');
      }
      const needed = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return {
        ...base,
        kind: 'object',
        fields: names.map((key) => build(root, properties[key], [...path, key], key, needed.has(key), depth + 1, refs)),
      };
    }
    case 'array': {
      if (Array.isArray(schema.items) || 'prefixItems' in schema)
        return json(schema, path, name, required, 'a tuple: give it as JSON');
      return { ...base, kind: 'array', item: build(root, schema.items, [...path, 0], 'item', true, depth + 1, refs) };
    }
    default:
      return json(
        schema,
        path,
        name,
        required,
        Array.isArray(schema.type)
          ? `one of several types (${(schema.type as string[]).join(', ')}): give it as JSON`
          : 'any JSON value',
      );
  }
}

function json(schema: Schema, path: Path, name: string, required: boolean, reason: string): Field {
  return {
    path,
    name,
    label: typeof schema.title === 'string' && schema.title ? schema.title : name,
    kind: 'json',
    required,
    reason,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...('default' in schema ? { default: schema.default } : {}),
  };
}

/** The form of a schema; its root is an object (a tool's inputSchema always is). */
export function formOf(schema: Record<string, unknown> | undefined): Field {
  const root = schema ?? { type: 'object', properties: {} };
  const field = build(root, root, [], '', true, 0, []);
  return field.kind === 'object' ? field : { ...field, reason: field.reason ?? 'the input is not an object' };
}

/** The form of a prompt's arguments (every argument is a string). */
export function promptForm(args: Array<{ name: string; description?: string; required?: boolean }> | undefined): Field {
  const list = args ?? [];
  return formOf({
    type: 'object',
    properties: Object.fromEntries(
      list.map((a) => [a.name, { type: 'string', ...(a.description ? { description: a.description } : {}) }]),
    ),
    required: list.filter((a) => a.required).map((a) => a.name),
  });
}

/** What a field holds when the form opens: its default; a required object its fields' starting values; else nothing. */
export function initialValue(field: Field): unknown {
  if (field.default !== undefined) return structuredClone(field.default);
  if (field.kind === 'object') {
    const out: Record<string, unknown> = {};
    for (const f of field.fields ?? []) {
      const v = f.required || f.default !== undefined ? initialValue(f) : undefined;
      if (v !== undefined) out[f.name] = v;
    }
    return field.required || Object.keys(out).length ? out : undefined;
  }
  if (field.kind === 'array') return field.required ? [] : undefined;
  if (field.kind === 'boolean') return field.required ? false : undefined;
  if (field.kind === 'enum' && field.required && field.options?.length === 1) return field.options[0];
  return undefined;
}

export function getAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const part of path)
    at = isObject(at) || Array.isArray(at) ? (at as Record<string | number, unknown>)[part] : undefined;
  return at;
}

/** A copy of `value` with `path` set to `next`; `undefined` removes an object key (an empty optional field). */
export function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    list[head] = setAt(list[head], rest, next);
    return list;
  }
  const obj: Record<string, unknown> = isObject(value) ? { ...value } : {};
  const inner = setAt(obj[head], rest, next);
  if (inner === undefined) delete obj[head];
  else obj[head] = inner;
  return obj;
}

/** A copy without the array item at `path` (its last part is the index). */
export function removeItem(value: unknown, path: Path): unknown {
  const index = path[path.length - 1] as number;
  const list = getAt(value, path.slice(0, -1));
  return setAt(value, path.slice(0, -1), Array.isArray(list) ? list.filter((_, i) => i !== index) : list);
}

/** A copy with a new item at the end of the array at `path`. */
export function addItem(value: unknown, path: Path, item: Field): unknown {
  const list = getAt(value, path);
  const next = initialValue({ ...item, required: true });
  return setAt(value, path, [...(Array.isArray(list) ? list : []), next ?? (item.kind === 'string' ? '' : null)]);
}

/** The field for an array's item at `index` (every path below it gets the index). */
export function itemAt(array: Field, index: number): Field {
  const rebase = (f: Field): Field => ({
    ...f,
    path: [...array.path, index, ...f.path.slice(array.path.length + 1)],
    ...(f.fields ? { fields: f.fields.map(rebase) } : {}),
    ...(f.item ? { item: rebase(f.item) } : {}),
  });
  return { ...rebase(array.item as Field), name: String(index), label: `${index + 1}` };
}

/**
 * The text of a number field as the value to send: empty → absent (undefined), a number → it, anything else → the
 * text itself, so that the engine's check says what is wrong rather than the form hiding it.
 */
export function numberFrom(text: string, integer: boolean): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) return trimmed;
  return n;
}

/** An enum option as the select's value, and back (options can be numbers, booleans, null). */
export const optionKey = (option: unknown): string => JSON.stringify(option);
export function optionOf(field: Field, key: string): unknown {
  return key === '' ? undefined : field.options?.find((o) => optionKey(o) === key);
}

/** Raw JSON mode: the text of a value, and a value from text (or why it is not JSON). */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value ?? {}, null, 2);
}
export function fromJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
}

/** Problems (engine's schema check) grouped by path text, for the fields to show beside themselves. */
export function problemsByPath(problems: Array<{ path: string; message: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of problems) out.set(p.path, [...(out.get(p.path) ?? []), p.message]);
  return out;
}
