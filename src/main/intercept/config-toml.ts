import { getStaticTOMLValue, parseTOML, type AST } from 'toml-eslint-parser';
import { lineColumn, MalformedConfig, type ConfigDoc, type NewValue } from './config-types.js';

/**
 * TOML (Codex's config.toml), edited by source ranges: toml-eslint-parser (the parser of eslint-plugin-toml) gives
 * every key and value with its offsets, so a change replaces one value's text, or adds or removes one `key = value`,
 * and every comment and blank line stays. TOML libraries that stringify a document drop comments; this does not.
 */

interface Located {
  path: string[];
  kv: AST.TOMLKeyValue;
}

const keyName = (key: AST.TOMLBare | AST.TOMLQuoted): string => (key.type === 'TOMLBare' ? key.name : key.value);
const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Every key/value with its full key path (tables, dotted keys and inline tables resolved). */
function locate(program: AST.TOMLProgram): Located[] {
  const found: Located[] = [];
  const visit = (kvs: readonly AST.TOMLKeyValue[], prefix: string[]): void => {
    for (const kv of kvs) {
      const path = [...prefix, ...kv.key.keys.map(keyName)];
      found.push({ path, kv });
      if (kv.value.type === 'TOMLInlineTable') visit(kv.value.body, path);
    }
  };
  for (const node of program.body[0].body) {
    if (node.type === 'TOMLKeyValue') visit([node], []);
    else if (node.kind === 'standard') visit(node.body, node.resolvedKey.map(String));
  }
  return found;
}

const escapes: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

/** A TOML basic string, or a bare key where the name allows one. */
export function tomlString(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/["\\\u0000-\u001f\u007f]/g, (c) => escapes[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
const tomlKey = (name: string): string => (/^[A-Za-z0-9_-]+$/.test(name) ? name : tomlString(name));

export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`cannot write ${typeof value} as TOML`);
}

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
/** just past the line end (its newline included), or the end of the text */
const lineEnd = (text: string, at: number): number => {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
};

export function openTomlDoc(text: string): ConfigDoc {
  let program: AST.TOMLProgram;
  try {
    program = parseTOML(text);
  } catch (error) {
    const e = error as Error & { index?: number };
    throw new MalformedConfig(
      `not valid TOML: ${e.message}${e.index !== undefined ? ` at ${lineColumn(text, e.index)}` : ''}`,
    );
  }
  const located = locate(program);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const find = (path: string[]): Located | undefined => located.find((l) => same(l.path, path));

  const remove = ({ kv }: Located): string => {
    if (kv.parent.type === 'TOMLInlineTable') {
      const siblings = kv.parent.body;
      const i = siblings.indexOf(kv);
      const [from, to] =
        i > 0 ? [siblings[i - 1].range[1], kv.range[1]] : [kv.range[0], siblings[1]?.range[0] ?? kv.range[1]];
      return text.slice(0, from) + text.slice(to);
    }
    return text.slice(0, lineStart(text, kv.range[0])) + text.slice(lineEnd(text, kv.range[1]));
  };

  const insert = (path: string[], valueText: string): string => {
    const parent = path.slice(0, -1);
    const key = tomlKey(path[path.length - 1]);
    const inline = find(parent)?.kv.value;
    if (inline?.type === 'TOMLInlineTable') {
      const last = inline.body[inline.body.length - 1];
      const at = last ? last.range[1] : inline.range[0] + 1;
      return `${text.slice(0, at)}${last ? ', ' : ' '}${key} = ${valueText}${last ? '' : ' '}${text.slice(at)}`;
    }
    const table = program.body[0].body.find(
      (n): n is AST.TOMLTable =>
        n.type === 'TOMLTable' && n.kind === 'standard' && same(n.resolvedKey.map(String), parent),
    );
    // a sibling written with dotted keys (`name.command = …`) gets a sibling line with the same prefix
    const sibling =
      table?.body[table.body.length - 1] ??
      located.find((l) => l.path.length === path.length && same(l.path.slice(0, -1), parent))?.kv;
    const after = sibling ?? table;
    if (!after) throw new Error(`no table [${parent.join('.')}] to add "${path[path.length - 1]}" to`);
    const prefix =
      sibling && sibling.parent === table
        ? ''
        : sibling
          ? text.slice(sibling.key.range[0], sibling.key.keys[sibling.key.keys.length - 1].range[0])
          : '';
    const indent = sibling ? text.slice(lineStart(text, sibling.range[0]), sibling.range[0]) : '';
    const at = lineEnd(text, (sibling ?? table!.key).range[1]);
    const newline = at === text.length && !text.endsWith('\n') ? eol : '';
    return `${text.slice(0, at)}${newline}${indent}${prefix}${key} = ${valueText}${eol}${text.slice(at)}`;
  };

  return {
    text,
    format: 'toml',
    value: getStaticTOMLValue(program),
    raw: (path) => {
      const found = find(path);
      return found && text.slice(found.kv.value.range[0], found.kv.value.range[1]);
    },
    set(path, value: NewValue | undefined) {
      const found = find(path);
      if (value === undefined) return found ? remove(found) : text;
      const valueText = 'raw' in value ? value.raw : tomlValue(value.value);
      if (!found) return insert(path, valueText);
      const [from, to] = found.kv.value.range;
      return text.slice(0, from) + valueText + text.slice(to);
    },
  };
}
