/**
 * Legacy HTTP+SSE (2024-11-05) served by the proxy for clients that only speak it:
 *
 *   GET  …/sse                         opens the SSE stream; its first event, `endpoint`, is …/messages?sessionId=<uuid>
 *                                      on the proxy's own origin (the SDK client rejects another origin)
 *   POST …/messages?sessionId=<uuid>   one client message → 202; every answer comes back on the SSE stream
 *
 * Each SSE connection is the SDK's SSEServerTransport piped raw onto the proxy's Streamable HTTP endpoint
 * (http-pipe.ts), so it goes through the same pipeline (record, replay, rules) as any other client. The HTTP edge
 * in front has already checked Host and Origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { HttpError } from '../errors.js';
import { parseJsonBody, readBody } from '../http/body.js';
import { sendJson } from '../http/sse.js';
import { pipeToProxy, type HttpPipe } from './http-pipe.js';
import { requestUrl } from '../http/url.js';
import { prefixed, silent, type Log } from '../log.js';

export interface LegacySseEndpoint {
  /** Serves GET …/sse (without Mcp-Session-Id) and POST …/messages?sessionId=…; false for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** ends every legacy connection */
  close(): Promise<void>;
}

interface Connection {
  transport: SSEServerTransport;
  pipe: HttpPipe;
}

export function createLegacySseEndpoint(proxyUrl: string, log: Log = silent): LegacySseEndpoint {
  const connections = new Map<string, Connection>();

  async function open(res: ServerResponse, path: string): Promise<void> {
    const transport = new SSEServerTransport(`${path.slice(0, -'sse'.length)}messages`, res);
    const id = transport.sessionId;
    let pipe: HttpPipe;
    try {
      pipe = await pipeToProxy(transport, proxyUrl, prefixed(log, `legacy SSE session ${id}: `));
    } catch (error) {
      if (!res.headersSent) sendJson(res, 502, { error: `mcp-rewind: ${(error as Error).message}` });
      return;
    }
    connections.set(id, { transport, pipe });
    void pipe.closed.then(() => connections.delete(id));
    if (res.destroyed) void pipe.close(); // the client left during the start
  }

  return {
    async handle(req, res) {
      const url = requestUrl(req); // never throws, whatever the request target (`//`, `*`)
      const path = url.pathname;
      if (req.method === 'GET' && path.endsWith('/sse') && req.headers['mcp-session-id'] === undefined) {
        await open(res, path);
        return true;
      }
      const sessionId = url.searchParams.get('sessionId');
      if (req.method === 'POST' && path.endsWith('/messages') && sessionId !== null) {
        await post(connections.get(sessionId), req, res);
        return true;
      }
      return false;
    },
    async close() {
      await Promise.all([...connections.values()].map((c) => c.pipe.close()));
      connections.clear();
    },
  };
}

/** One client message to its connection's stream (202; the answer comes on the SSE stream). */
async function post(connection: Connection | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!connection) {
    req.resume();
    return sendJson(res, 404, errorResponse(null, -32001, 'Session not found'));
  }
  let parsed: unknown;
  try {
    parsed = await readMessage(req);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return sendJson(res, error.status, error.toResponse(null));
  }
  // the transport validates the message itself (400 "Invalid message") and answers 202
  await connection.transport.handlePostMessage(req, res, parsed).catch((error: unknown) => {
    // the SDK transport may throw before answering (a Host that new URL() rejects, a body it cannot format):
    // answer, never leave the socket open; when it did answer (stream closed meanwhile: 500), end what is left
    if (!res.headersSent)
      sendJson(res, 400, errorResponse(null, ErrorCode.InvalidRequest, `Invalid message: ${(error as Error).message}`));
    else if (!res.writableEnded) res.end();
  });
}

/** The POST's JSON body; an HttpError for another content type (415) or bad JSON. */
async function readMessage(req: IncomingMessage): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').includes('application/json')) {
    req.resume();
    throw new HttpError(415, 'Unsupported Media Type: Content-Type must be application/json', ErrorCode.InvalidRequest);
  }
  return parseJsonBody(await readBody(req));
}
