/** One difference between two JSON values: where, and the value on each side (absent: not there). */
export interface JsonChange {
  path: string;
  a?: unknown;
  b?: unknown;
}

/** The differences between two JSON values, leaf by leaf (arrays by position), at most `limit`. */
export function jsonChanges(a: unknown, b: unknown, limit = 200, path = ''): JsonChange[] {
  const out: JsonChange[] = [];
  const walk = (x: unknown, y: unknown, at: string, depth: number): void => {
    if (out.length >= limit) return;
    const objects =
      x !== null &&
      y !== null &&
      typeof x === 'object' &&
      typeof y === 'object' &&
      Array.isArray(x) === Array.isArray(y);
    if (!objects || depth > 64) {
      if (JSON.stringify(x) !== JSON.stringify(y))
        out.push({ path: at || '(root)', ...(x !== undefined ? { a: x } : {}), ...(y !== undefined ? { b: y } : {}) });
      return;
    }
    const keys = Array.isArray(x)
      ? Array.from({ length: Math.max(x.length, (y as unknown[]).length) }, (_, i) => i)
      : [...new Set([...Object.keys(x as object), ...Object.keys(y as object)])];
    for (const k of keys) {
      const next = typeof k === 'number' ? `${at}[${k}]` : at ? `${at}.${k}` : k;
      walk((x as Record<string | number, unknown>)[k], (y as Record<string | number, unknown>)[k], next, depth + 1);
    }
  };
  walk(a, b, path, 0);
  return out;
}
