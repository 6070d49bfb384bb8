export const REDACTED = '[REDACTED]';

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|apikey|x-auth-token|x-access-token|x-mimcp-session|mcp-session-id)$|(secret|token|password|passwd|api[-_]?key|session-key|credential)/i;

export const isSecretHeader = (name: string): boolean => SECRET_HEADER.test(name);

/** A copy of the headers with every credential-like value replaced by "[REDACTED]" (before anything touches disk). */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = isSecretHeader(name) ? REDACTED : value;
  }
  return out;
}

const SECRET_PARAM = /(key|token|secret|password|passwd|auth|session|signature|sig|credential)/i;

/** A URL safe to print or store: user:password and secret-looking query parameters replaced by "[REDACTED]". */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return String(url);
  }
  if (u.username) u.username = REDACTED;
  if (u.password) u.password = REDACTED;
  for (const name of [...u.searchParams.keys()]) if (SECRET_PARAM.test(name)) u.searchParams.set(name, REDACTED);
  return u.href.replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

/** User-configured secret patterns (--redact): compiled once, global. Throws with the bad pattern named. */
export function compileRedactions(patterns: readonly string[]): RegExp[] {
  return patterns.map((source) => {
    try {
      return new RegExp(source, 'g');
    } catch (error) {
      throw new Error(`--redact "${source}": ${(error as Error).message}`, { cause: error });
    }
  });
}

/** A copy of a JSON value (or string) with every match of the patterns, in every string, replaced by "[REDACTED]". */
export function scrub<T>(value: T, patterns: readonly RegExp[]): T {
  if (patterns.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return patterns.reduce((text, re) => text.replace(re, REDACTED), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
