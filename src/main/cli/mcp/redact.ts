import { SECRET_FORMATS, SECRET_KEY } from '../../../shared/insight/security.js';
import { setOwn } from '../../../shared/own.js';
import { redactDeep } from '../../engine/cassette/export.js';
import { REDACTED } from '../../engine/redact.js';

/**
 * What the MCP server for agents hands out, with secrets redacted: headers and authorization-like keys (as exports
 * redact them), any value under a secret-like key (`api_key`, `password`, `token`…), well-known credential formats
 * inside any text (sk-…, ghp_…, AKIA…, JWTs), and session ids cut to their first 8 characters.
 */
export function redactForAgent<T>(value: T): T {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') {
      if (SECRET_KEY.test(key) && v.length > 0) return REDACTED;
      if (key === 'sessionId') return v.length > 8 ? `${v.slice(0, 8)}…` : v;
      return v.replace(SECRET_FORMATS, REDACTED);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) setOwn(out, k, walk(x, k));
    return out;
  };
  return walk(redactDeep(value), '') as T;
}
