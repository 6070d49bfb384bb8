import { setOwn } from '../../shared/own.js';

export const REDACTED = '[REDACTED]';

/**
 * A header is a secret when its name looks like one: a fixed list misses vendors' own (Ocp-Apim-Subscription-Key,
 * X-Auth-Key, x-functions-key, Signature…), so any name containing one of these words is redacted …
 */
const SECRET_WORD = /auth|key|token|secret|signature|password|passwd|session|cookie|credential|api/i;
/**
 * … except names known to carry no secret that the words above would catch. Mcp-Session-Id stays redacted: some
 * servers use the session id as a bearer credential (MiMCP does).
 */
const HARMLESS = new Set([
  'content-type',
  'accept',
  'mcp-protocol-version',
  'last-event-id',
  'www-authenticate', // a challenge naming the authorization server, needed to debug OAuth; never a credential
  'access-control-allow-credentials',
  'sec-websocket-key',
]);

export const isSecretHeader = (name: string): boolean => !HARMLESS.has(name.toLowerCase()) && SECRET_WORD.test(name);

/** A copy of the headers with every credential-like value replaced by "[REDACTED]" (before anything touches disk). */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const kept = isSecretHeader(name) ? REDACTED : value;
    if (name === '__proto__') setOwn(out, name, kept);
    else out[name] = kept;
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
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
