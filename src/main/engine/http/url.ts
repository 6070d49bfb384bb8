import type { IncomingMessage } from 'node:http';

/** decodeURIComponent that answers undefined instead of throwing on malformed escapes (`%`, `%E0%A4%A`). */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The request target as a URL, whatever the client sent (`//`, `*`, a bare path): never throws. */
export function requestUrl(req: IncomingMessage): URL {
  const raw = req.url ?? '/';
  try {
    return new URL(`http://localhost${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return new URL('http://localhost/');
  }
}

/** The first value of a request header (Node gives an array for repeated headers). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
