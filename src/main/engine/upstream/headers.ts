import type { IncomingHttpHeaders } from 'node:http';
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
    if (value !== undefined && !HOP_BY_HOP.has(name)) setOwn(out, name, value);
  }
  return out;
}
