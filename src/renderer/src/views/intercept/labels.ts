import type { InterceptServer, ServerTransport } from '../../../../shared/intercept.js';

/** The state of a server in a few words: direct, or through mcp-rewind and whether the app sees it now. */
export function stateLabel(s: InterceptServer): string {
  if (s.state === 'direct') return 'direct';
  if (s.watching) return 'through mcp-rewind · live';
  return s.transport.kind === 'http'
    ? 'through mcp-rewind · its proxy is not running'
    : 'through mcp-rewind · not started by the client since';
}

export const stateClass = (s: InterceptServer): string =>
  s.state === 'direct' ? 'direct' : s.watching ? 'live' : 'waiting';

/** The command line or URL, as one line. */
export function launchLine(t: ServerTransport): string {
  return t.kind === 'stdio'
    ? [t.command, ...t.args].map((w) => (/\s/.test(w) ? JSON.stringify(w) : w)).join(' ')
    : t.url;
}
