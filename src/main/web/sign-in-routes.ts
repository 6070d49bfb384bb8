import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../engine/errors.js';
import { readBody } from '../engine/http/body.js';
import { SECURITY_HEADERS } from './static-files.js';
import { HANDOFF_REFUSED_HTML, handoffPage, type SignInCodes } from './sign-in.js';

/**
 * The browser shell's sign-in routes (sign-in.ts says why there are codes):
 *
 *   POST /api/session  {"code"} → {"token"}       the page exchanges the printed link's code (once)
 *   POST /api/handoff  code=…   → a page that keeps the token in sessionStorage and replaces itself with `/`
 *                                   (the form of the hand-off file, from a file:// page: Origin `null`)
 *   POST /api/code     Bearer   → {"code","url"}  a new one-time link, for the holder of the token
 *                                   (a second `mcp-rewind ui` on the same data folder asks the running one)
 */
export const SIGN_IN_PATHS = new Set(['/api/session', '/api/handoff', '/api/code']);
const MAX_SIGN_IN_BODY = 4096;
const REFUSED =
  'this sign-in link was used already or has expired (a link works once, within a minute): run mcp-rewind ui again for a new one';

export interface SignInContext {
  codes: SignInCodes;
  token: string;
  origin: string;
  authorized(req: IncomingMessage): boolean;
}

const json = (res: ServerResponse, status: number, body: unknown): void =>
  void res
    .writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));

const html = (
  res: ServerResponse,
  status: number,
  text: string,
  csp = SECURITY_HEADERS['content-security-policy'],
): void =>
  void res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      'content-security-policy': csp,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    })
    .end(text);

/** the body of a sign-in POST of the given content type, else an HttpError (415, 413) */
async function bodyOf(req: IncomingMessage, type: string): Promise<string> {
  if (!String(req.headers['content-type'] ?? '').startsWith(type)) {
    req.resume();
    throw new HttpError(415, `Content-Type must be ${type}`);
  }
  return (await readBody(req, MAX_SIGN_IN_BODY)).toString('utf8');
}

function codeOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { code?: unknown };
    return typeof parsed?.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

async function route(ctx: SignInContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (path === '/api/code') {
    req.resume();
    if (!ctx.authorized(req))
      return json(res, 401, { error: 'the UI token is required (Authorization: Bearer <token>)' });
    const code = ctx.codes.issue();
    return json(res, 201, { code, url: `${ctx.origin}/?code=${code}` });
  }
  if (path === '/api/session') {
    const code = codeOf(await bodyOf(req, 'application/json'));
    return ctx.codes.redeem(code) ? json(res, 200, { token: ctx.token }) : json(res, 401, { error: REFUSED });
  }
  const code = new URLSearchParams(await bodyOf(req, 'application/x-www-form-urlencoded')).get('code');
  if (!ctx.codes.redeem(code)) return html(res, 401, HANDOFF_REFUSED_HTML);
  const page = handoffPage(ctx.token);
  return html(res, 200, page.html, page.csp);
}

/** Answers one of SIGN_IN_PATHS (POST only). */
export async function answerSignIn(
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return void res.writeHead(405, { ...SECURITY_HEADERS, allow: 'POST' }).end();
  }
  try {
    await route(ctx, req, res, path);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    json(res, error.status, { error: error.message });
  }
}
