import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** The built renderer's files (out/renderer), served to the browser shell's page. They hold no secret. */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** no inline scripts, no foreign connections; data:/blob: images and audio for rendered tool results */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** the headers of every answer of the browser shell */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': CONTENT_SECURITY_POLICY,
};

/**
 * GET/HEAD of a file under `root` (a path ending in / is its index.html); nothing outside `root`. The file is piped
 * with stream.pipeline, so a client that resets mid-answer closes the file too (with .pipe() it stayed open: one
 * descriptor per reset, until the process ran out of them).
 */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return void res.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET, HEAD' }).end();
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return void res.writeHead(400).end();
  }
  const file = resolve(root, '.' + (path.endsWith('/') ? path + 'index.html' : path));
  const info = file === root || !file.startsWith(root + sep) ? undefined : await stat(file).catch(() => undefined);
  if (!info?.isFile())
    return void res
      .writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
      .end('not found');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': extname(file) === '.html' ? 'no-store' : 'no-cache',
  });
  if (req.method === 'HEAD') return void res.end();
  // a reset client or a read error ends both streams (the answer is cut short: its length was promised)
  await pipeline(createReadStream(file), res).catch(() => res.destroy());
}
