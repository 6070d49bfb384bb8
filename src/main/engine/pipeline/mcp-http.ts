import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/sse.js';
import { pathOf } from '../http/url.js';
import { copyEndToEndHeaders } from '../http/headers.js';
import type { Upstream } from './core/contract.js';
import type { McpEndpoint } from './endpoint.js';

const DONE = Promise.resolve();

/** Streamable HTTP in front of an endpoint: POST, GET (server stream), DELETE, and the upstream's OAuth discovery documents. */
export function serveMcp(
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  path = pathOf(req),
): Promise<void> {
  const upstream = endpoint.upstream;
  if (req.method === 'GET' && upstream && path.includes('/.well-known/'))
    return relayWellKnown(req, res, upstream, path.slice(path.indexOf('/.well-known/')));
  switch (req.method) {
    case 'POST':
      return endpoint.post(req, res);
    case 'GET':
      return endpoint.get(req, res);
    case 'DELETE':
      return endpoint.delete(req, res);
    default:
      res.writeHead(405, { allow: 'GET, POST, DELETE, OPTIONS' }).end();
      return DONE;
  }
}

/** OAuth discovery documents (protected-resource / authorization-server metadata) come from the upstream's origin. */
async function relayWellKnown(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  path: string,
): Promise<void> {
  let upRes: IncomingMessage;
  try {
    upRes = await upstream.request({
      method: 'GET',
      headers: copyEndToEndHeaders(req.headers),
      target: new URL(path, upstream.url),
    });
  } catch (error) {
    return sendJson(res, 502, {
      error: `upstream unavailable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    });
  }
  res.writeHead(upRes.statusCode ?? 502, copyEndToEndHeaders(upRes.headers));
  upRes.pipe(res);
}
