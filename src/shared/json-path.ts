/**
 * Paths into JSON values: as the UI shows them (`result.content[0].text`), as verify and diff print them
 * (JSONPath, `$.result.content[0].text`), and the field patterns of `--ignore-fields` that match them at any depth.
 * Pure.
 */
import { setOwn } from './own.js';

export type Path = Array<string | number>;

/** "a.b[0].c": the path as the UI and the engine's schema check name it ("" for the root) */
export function pathText(path: Path): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** JSONPath of a path: `$.result.content[0].text`; a key that is not a plain name is bracketed: `$._meta['io.x/y']`. */
export function jsonPath(path: Path): string {
  let out = '$';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (IDENTIFIER.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(part).replace(/^"|"$/g, "'")}]`;
  }
  return out;
}

/** One step of a field pattern: a key, an array index, any one key or index (`*`), or any number of steps (`**`). */
type Step = { key: string } | { index: number } | 'any' | 'deep';
export type FieldPattern = readonly Step[];

/**
 * Parses a field pattern (`--ignore-fields`): steps joined by `.`, optionally after `$`; `[3]` an array index, `[*]`
 * or `*` any one key or index, `**` (or JSONPath's `..`) any number of steps, `['a.b']` a key with dots. Examples:
 * `**.timestamp`, `result.content[*].text`, `$..requestId`, `result._meta['io.modelcontextprotocol/serverInfo']`.
 * Throws an Error naming the problem.
 */
export function parseFieldPattern(text: string): FieldPattern {
  const source = text.trim();
  const steps: Step[] = [];
  let i = source.startsWith('$') ? 1 : 0;
  let needName = i === 0; // a name may open the pattern without a dot
  const fail = (why: string): never => {
    throw new Error(`field pattern "${text}": ${why} at character ${i + 1}`);
  };
  while (i < source.length) {
    if (source.startsWith('..', i)) {
      steps.push('deep');
      i += 2;
      needName = true;
    } else if (source[i] === '.') {
      i++;
      needName = true;
    } else if (source[i] === '[') {
      const end = bracketEnd(source, i) ?? fail('an unclosed [');
      steps.push(bracketStep(source.slice(i + 1, end)) ?? fail('a bracket holds *, an index or a quoted key'));
      i = end + 1;
      needName = false;
    } else {
      if (!needName) fail('a "." or "[" is missing');
      const m = /^[^.[\]]+/.exec(source.slice(i)) ?? fail('a name is missing');
      steps.push(m[0] === '**' ? 'deep' : m[0] === '*' ? 'any' : { key: m[0] });
      i += m[0].length;
      needName = false;
    }
  }
  if (steps.length === 0 || needName) fail('the pattern ends without a name');
  return steps;
}

function bracketEnd(source: string, open: number): number | undefined {
  const quote = source[open + 1];
  if (quote === "'" || quote === '"') {
    const close = source.indexOf(`${quote}]`, open + 2);
    return close < 0 ? undefined : close + 1;
  }
  const close = source.indexOf(']', open);
  return close < 0 ? undefined : close;
}

function bracketStep(inner: string): Step | undefined {
  if (inner === '*') return 'any';
  if (/^\d+$/.test(inner)) return { index: Number(inner) };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  return quoted ? { key: quoted[2] } : undefined;
}

const stepMatches = (step: { key: string } | { index: number }, part: string | number): boolean =>
  'key' in step ? String(part) === step.key : part === step.index;

/** Does a pattern match this whole path? */
export function matchesPattern(pattern: FieldPattern, path: Path, from = 0, at = 0): boolean {
  if (from === pattern.length) return at === path.length;
  const step = pattern[from];
  if (step === 'deep') {
    for (let k = at; k <= path.length; k++) if (matchesPattern(pattern, path, from + 1, k)) return true;
    return false;
  }
  if (at === path.length) return false;
  return (step === 'any' || stepMatches(step, path[at])) && matchesPattern(pattern, path, from + 1, at + 1);
}

/** A copy of a JSON value without the keys and array items any pattern matches (the value itself is left as it is). */
export function omitFields(value: unknown, patterns: readonly FieldPattern[], path: Path = []): unknown {
  if (patterns.length === 0 || value === null || typeof value !== 'object') return value;
  const keep = (part: string | number): boolean => {
    const at = [...path, part];
    return !patterns.some((p) => matchesPattern(p, at));
  };
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, i) => void (keep(i) && out.push(omitFields(item, patterns, [...path, i]))));
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    if (keep(key)) setOwn(out, key, omitFields(item, patterns, [...path, key])); // `__proto__` stays a key
  return out;
}
