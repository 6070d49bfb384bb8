import { jsonSha256 } from '../fs/json-pieces.js';

/** The value at a dot path (`structuredContent.report`), or undefined. */
export function getByPath(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (cur, key) => (cur != null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined),
      value,
    );
}

/** Deletes the value at a dot path, where there is one. */
export function deleteByPath(value: unknown, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() as string;
  const parent = getByPath(value, parts.join('.'));
  if (parts.length === 0) {
    if (value != null && typeof value === 'object') delete (value as Record<string, unknown>)[last];
    return;
  }
  if (parent != null && typeof parent === 'object') delete (parent as Record<string, unknown>)[last];
}

export interface ResultHashOptions {
  /** dot path into the result used as hash input instead of the full result */
  path?: string;
  /** dot paths deleted before hashing (relative to `path` when set) */
  ignore?: string[];
}

/**
 * mcp-rewind's result hash: sha256 (16 hex) of JSON.stringify of the result, or of the value at `path`
 * minus the `ignore` paths. Used to group identical responses into one cassette entry.
 */
export function buildResultHasher(options: ResultHashOptions = {}): (result: unknown) => string {
  const ignore = options.ignore ?? [];
  return (result) => {
    let value: unknown = ignore.length ? structuredClone(result) : result;
    if (options.path !== undefined) value = getByPath(value, options.path);
    for (const path of ignore) deleteByPath(value, path);
    return jsonSha256(value ?? null).slice(0, 16); // = hash16(JSON.stringify(value)), without the whole text at once
  };
}
