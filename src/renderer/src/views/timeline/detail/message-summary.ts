/** A one-line summary of a streamed message: its method and what it says (progress, a log line…). */
export function messageSummary(message: unknown): string {
  const m = message as {
    method?: string;
    id?: unknown;
    params?: Record<string, unknown>;
    result?: unknown;
    error?: { message?: string };
  };
  if (!m.method) return m.error ? `reply (error: ${m.error.message ?? ''})` : 'reply';
  const p = m.params ?? {};
  if (m.method === 'notifications/progress')
    return `progress ${String(p.progress)}${p.total !== undefined ? `/${String(p.total)}` : ''}${p.message ? ` · ${String(p.message)}` : ''}`;
  if (m.method === 'notifications/message')
    return `${String(p.level ?? 'log')}: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`;
  return `${m.method}${m.id !== undefined ? ' (request)' : ''}`;
}
