import type { IncomingMessage, ServerResponse } from 'node:http';
import { type z } from 'zod';
import { CreateSessionSchema, describeZodError, PutToolsSchema } from '../../../shared/rules/schema.js';
import { HttpError } from '../errors.js';
import { parseJsonBody, readBody } from '../http/body.js';
import { sendJson } from '../http/sse.js';
import { safeDecode } from '../http/url.js';
import type { AuthThrottle } from '../http/auth-throttle.js';
import type { SessionManager } from './session-manager.js';

const MAX_REST_BODY = 1024 * 1024;

function fail(res: ServerResponse, status: number, error: string, message: string): void {
  sendJson(res, status, { error, message });
}

async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const type = req.headers['content-type'] ?? '';
  if (!type.includes('application/json')) throw new HttpError(415, 'Content-Type must be application/json');
  const value = parseJsonBody(await readBody(req, MAX_REST_BODY));
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, describeZodError(parsed.error));
  return parsed.data;
}

/** MiMCP's REST API: /api/healthz and /api/sessions[/{sid}[/tools|/calls]]. */
export async function handleRest(
  manager: SessionManager,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  throttle: AuthThrottle,
): Promise<void> {
  try {
    await route(manager, req, res, path, throttle);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    if (error.status === 413) req.resume();
    if (error.status === 429) res.setHeader('retry-after', '10');
    fail(
      res,
      error.status,
      error.status === 400 ? 'invalid request' : error.status === 429 ? 'too many sessions' : 'request refused',
      error.message,
    );
  }
}

async function route(
  manager: SessionManager,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  throttle: AuthThrottle,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (path === '/api/healthz' && method === 'GET') return sendJson(res, 200, { status: 'ok' });
  if (!manager.authorizedForApi(req)) return refuseApiToken(req, res, throttle);
  if (path === '/api/sessions') {
    if (method === 'GET') return sendJson(res, 200, { sessions: manager.list().map((s) => s.summary()) });
    if (method === 'POST') {
      const { session, token } = await manager.create(await readJson(req, CreateSessionSchema));
      return sendJson(res, 201, { ...session.summary(), mcp: manager.mcpAccess(token), tools: session.tools() });
    }
    return notAllowed(res, 'GET, POST');
  }
  const m = /^\/api\/sessions\/([^/]+)(\/tools|\/calls)?$/.exec(path);
  if (!m) return fail(res, 404, 'not found', `no such API path: ${path}`);
  const sid = safeDecode(m[1]) ?? m[1]; // a malformed escape names no session: 404 below
  return routeSession(manager, req, res, sid, m[2] ?? '');
}

/** No API token, or a wrong one: 401, or 429 after too many wrong ones from this host. */
async function refuseApiToken(req: IncomingMessage, res: ServerResponse, throttle: AuthThrottle): Promise<void> {
  // checked first: a right token is never held back by someone else's wrong ones (auth-throttle.ts)
  const wait = await throttle.failed(req);
  if (wait !== undefined) {
    res.setHeader('retry-after', String(wait));
    return fail(res, 429, 'too many failed attempts', `too many wrong API tokens from this host; retry in ${wait} s`);
  }
  res.setHeader('www-authenticate', 'Bearer realm="mcp-rewind api"');
  return fail(
    res,
    401,
    'unauthorized',
    'missing or wrong API token (Authorization: Bearer <token>: printed by mcp-rewind serve at its first start and kept in its data folder, or set with --api-token / MIMCP_API_TOKEN)',
  );
}

/** /api/sessions/{sid}[/tools|/calls] */
async function routeSession(
  manager: SessionManager,
  req: IncomingMessage,
  res: ServerResponse,
  sid: string,
  sub: string,
): Promise<void> {
  const session = manager.get(sid);
  if (!session) return fail(res, 404, 'not found', `unknown session "${sid}"`);
  switch (`${req.method ?? 'GET'} ${sub}`) {
    case 'GET ':
      return sendJson(res, 200, session.detail(manager.mcpAccess()));
    case 'DELETE ':
      await manager.delete(sid);
      res.writeHead(204).end();
      return;
    case 'GET /tools':
      return sendJson(res, 200, { tools: session.tools(), passthrough: session.passthrough });
    case 'PUT /tools': {
      const put = await readJson(req, PutToolsSchema);
      manager.checkCommand(put.upstream);
      manager.checkRuleSetSize(put.tools, session.config.instructions);
      const hasUpstream = put.upstream === undefined ? session.endpoint.upstream !== undefined : put.upstream !== null;
      manager.checkSyntheticTools(put.tools, hasUpstream || session.config.cassette !== undefined, 'tools');
      const notified = await session.replaceTools(put);
      return sendJson(res, 200, { tools: session.tools(), passthrough: session.passthrough, notified });
    }
    case 'GET /calls':
      return sendJson(res, 200, { calls: session.calls });
    default:
      return notAllowed(res, sub === '/tools' ? 'GET, PUT' : sub === '/calls' ? 'GET' : 'GET, DELETE');
  }
}

function notAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('allow', allow);
  fail(res, 405, 'method not allowed', `allowed: ${allow}`);
}
