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
