import type { AppSessionConfig } from '../../../shared/app-session.js';

/**
 * The request-level options of Edit & resend and Compose as the user types them: headers one `Name: value` a line,
 * `_meta` as a JSON object; and the app session's declaration in words. Pure; the engine validates again.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** `Authorization: Bearer x` lines → { Authorization: 'Bearer x' }; blank lines are skipped */
export function parseHeaderLines(text: string): Parsed<Record<string, string>> {
  const headers: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, message: `headers, line ${i + 1}: expected "Name: value"` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { ok: true, value: headers };
}

export function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/** `_meta` text → an object (empty text: none) */
export function parseMeta(text: string): Parsed<Record<string, unknown> | undefined> {
  if (!text.trim()) return { ok: true, value: undefined };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, message: '_meta must be a JSON object' };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, message: `_meta: ${(error as Error).message}` };
  }
}

/** one root a line: `file:///path` or `file:///path name` */
export function parseRootLines(text: string): AppSessionConfig['roots'] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      return space < 0 ? { uri: line } : { uri: line.slice(0, space), name: line.slice(space + 1).trim() };
    });
}

export function rootLines(roots: AppSessionConfig['roots']): string {
  return roots.map((r) => (r.name ? `${r.uri} ${r.name}` : r.uri)).join('\n');
}

/** "sampling, elicitation, roots (2)" or "nothing" */
export function declaredText(capabilities: Record<string, unknown> | undefined, rootCount?: number): string {
  const names = Object.keys(capabilities ?? {}).filter((k) => k !== 'experimental');
  if (names.length === 0) return 'nothing';
  return names.map((n) => (n === 'roots' && rootCount !== undefined ? `roots (${rootCount})` : n)).join(', ');
}
