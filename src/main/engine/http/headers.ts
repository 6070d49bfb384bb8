import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { setOwn } from '../../../shared/own.js';

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus the ones we recompute. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
  'accept-encoding',
]);

export function copyEndToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (name === '__proto__') setOwn(out, name, value);
    else out[name] = value;
  }
  return out;
}

/**
 * Response headers relayed to the client: all end-to-end headers, the session id mapped to the client's
 * (`clientSessionId`; `owned`: the proxy issued it, so a successful answer carries it even when the upstream's had none).
 */
export function downstreamHeaders(
  upRes: IncomingMessage,
  clientSessionId: string | undefined,
  owned: boolean,
): Record<string, string | string[]> {
  const headers = copyEndToEndHeaders(upRes.headers);
  if (upRes.headers['content-length']) headers['content-length'] = upRes.headers['content-length'];
  if (clientSessionId && (headers['mcp-session-id'] || (owned && (upRes.statusCode ?? 500) < 300)))
    headers['mcp-session-id'] = clientSessionId;
  return headers;
}

/** Credentials given by the user (a header, a URL's user:password) win over a sign-in. */
export const hasAuthorization = (headers: Record<string, string> | undefined): boolean =>
  Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
