import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, invalidMessageReason, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { HttpError } from '../errors.js';
import type { Upstream } from '../pipeline/contract.js';
import type { McpEndpoint } from '../pipeline/endpoint.js';
import { copyEndToEndHeaders } from '../upstream/headers.js';
import { parseJsonBody, readBody } from './body.js';
import { sendJson } from './sse.js';

const DONE = Promise.resolve();

/** The path of a request target, without its query. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Streamable HTTP in front of an endpoint: POST (validated JSON-RPC, or piped when no hook wants it), GET (server stream), DELETE. */
export function serveMcp(endpoint: McpEndpoint, req: IncomingMessage, res: ServerResponse, path = pathOf(req)): Promise<void> {
  const upstream = endpoint.upstream;
  if (req.method === 'GET' && upstream && path.includes('/.well-known/')) return relayWellKnown(req, res, upstream, path.slice(path.indexOf('/.well-known/')));
  switch (req.method) {
    case 'POST':
      return endpoint.pipes ? endpoint.pipe(req, res) : post(endpoint, req, res);
    case 'GET':
      return endpoint.get(req, res);
    case 'DELETE':
      return endpoint.delete(req, res);
    default:
      res.writeHead(405, { allow: 'GET, POST, DELETE, OPTIONS' }).end();
      return DONE;
  }
}

async function post(endpoint: McpEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Buffer | undefined;
  let parsed: unknown;
  try {
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      req.resume();
      throw new HttpError(415, 'Unsupported Media Type: Content-Type must be application/json', ErrorCode.InvalidRequest);
    }
    body = await readBody(req);
    parsed = parseJsonBody(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (messages.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', ErrorCode.InvalidRequest);
    for (const m of messages) {
      const reason = invalidMessageReason(m);
      if (reason) throw new HttpError(400, `Invalid Request: ${reason}`, ErrorCode.InvalidRequest);
    }
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    if (error.status === 413) req.resume();
    // not JSON-RPC: the server behind judges it (live), or replay refuses it the way the recorded server did
    if (body !== undefined && error.status === 400)
      return endpoint.invalid(req, res, body, error.code === ErrorCode.ParseError ? 'parse-error' : 'invalid-message', error.message);
    return sendJson(res, error.status, error.toResponse(null), error.status === 413 ? { connection: 'close' } : {});
  }
  await endpoint.post(req, res, body, parsed as JsonRpcMessage | JsonRpcMessage[]);
}

/** OAuth discovery documents (protected-resource / authorization-server metadata) come from the upstream's origin. */
async function relayWellKnown(req: IncomingMessage, res: ServerResponse, upstream: Upstream, path: string): Promise<void> {
  let upRes: IncomingMessage;
  try {
    upRes = await upstream.request('GET', copyEndToEndHeaders(req.headers), undefined, undefined, new URL(path, upstream.url));
  } catch (error) {
    return sendJson(res, 502, { error: `upstream unavailable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
  }
  res.writeHead(upRes.statusCode ?? 502, copyEndToEndHeaders(upRes.headers));
  upRes.pipe(res);
}
