/**
 * Issue 24's bad input: an authorization server that misbehaves on purpose (a small node:http server here) in front of
 * a real MCP server (the SDK's, behind a bearer check). Each failure — the authorization server unreachable, a
 * registration refused, an error answer to the authorization request, a redirect with a wrong state, an expired code,
 * a refresh refused, no PKCE advertised — gives the client a JSON-RPC error (-32007) naming the step, leaves the
 * sign-in in a `failed` state naming the same step, and the proxy serving on: never a hang, never a crash.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ErrorCode } from '../../src/shared/jsonrpc.js';
import { SIGN_IN_STEP_WORDS, type SignInStep } from '../../src/shared/sign-in.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { CredentialStore } from '../../src/main/engine/upstream/oauth/credentials.js';
import { UpstreamSignIn } from '../../src/main/engine/upstream/oauth/sign-in.js';
import { connectClient } from '../fixtures/client.js';
import { followSignIn } from '../helpers/oauth.js';
import { startCli, type Cli } from '../helpers/oauth-cli.js';
import { closedPort } from '../helpers/ports.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

type Misbehaviour =
  | 'none'
  | 'unreachable'
  | 'silent'
  | 'registration-refused'
  | 'error-response'
  | 'wrong-state'
  | 'expired-code'
  | 'refresh-fails'
  | 'no-pkce';

interface Misbehaving {
  url: string;
  server: Server;
  /** MCP requests answered 401 so far */
  unauthorized(): number;
}

const json = (res: ServerResponse, status: number, body: unknown): void =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** An authorization server that does `mode` wrong, and the MCP endpoint it protects (the SDK's McpServer). */
async function misbehaving(mode: Misbehaviour): Promise<Misbehaving> {
  const asElsewhere = mode === 'unreachable' ? `http://127.0.0.1:${await closedPort()}` : undefined;
  const tokens = new Map<string, number>(); // token → expiry (ms)
  let issued = 0;
  let unauthorized = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const url = new URL(req.url ?? '/', base);
      const issue = (): void => {
        const token = `token-${++issued}`;
        const lifetime = mode === 'refresh-fails' ? 1 : 3600;
        tokens.set(token, Date.now() + lifetime * 1000);
        json(res, 200, {
          access_token: token,
          token_type: 'bearer',
          expires_in: lifetime,
          refresh_token: `refresh-${issued}`,
        });
      };
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp')
        return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [asElsewhere ?? base] });
      if (url.pathname === '/.well-known/oauth-authorization-server' && mode === 'silent') return; // accepts, never answers
      if (url.pathname === '/.well-known/oauth-authorization-server')
        return json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          ...(mode === 'no-pkce' ? {} : { code_challenge_methods_supported: ['S256'] }),
          token_endpoint_auth_methods_supported: ['none'],
        });
      if (url.pathname === '/register') {
        const metadata = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
        if (mode === 'registration-refused')
          return json(res, 400, { error: 'invalid_client_metadata', error_description: 'registration is closed' });
        return json(res, 201, { ...metadata, client_id: 'client-1' });
      }
      if (url.pathname === '/authorize') {
        const back = new URL(url.searchParams.get('redirect_uri') as string);
        const state = url.searchParams.get('state') ?? '';
        if (mode === 'error-response')
          back.search = new URLSearchParams({
            error: 'access_denied',
            error_description: 'the user said no',
            state,
          }).toString();
        else
          back.search = new URLSearchParams({
            code: 'code-1',
            state: mode === 'wrong-state' ? 'forged-state' : state,
          }).toString();
        return void res.writeHead(302, { location: back.href }).end();
      }
      if (url.pathname === '/token') {
        const form = new URLSearchParams(await bodyOf(req));
        if (form.get('grant_type') === 'authorization_code' && mode === 'expired-code')
          return json(res, 400, { error: 'invalid_grant', error_description: 'the code expired' });
        if (form.get('grant_type') === 'refresh_token' && mode === 'refresh-fails')
          return json(res, 400, { error: 'invalid_grant', error_description: 'the refresh token was revoked' });
        return issue();
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || (tokens.get(token) ?? 0) < Date.now()) {
        unauthorized++;
        res.setHeader(
          'www-authenticate',
          `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        );
        return json(res, 401, { error: 'invalid_token' });
      }
      const mcp = new McpServer({ name: 'behind a misbehaving AS', version: '1' });
      mcp.registerTool('greet', { inputSchema: { name: z.string() } }, async ({ name }) => ({
        content: [{ type: 'text', text: `Hello, ${name}!` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res, JSON.parse((await bodyOf(req)) || 'null'));
    })().catch((error: Error) => res.writeHead(500).end(error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    server,
    unauthorized: () => unauthorized,
  };
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});
afterAll(removeTempDirs);

/** A proxy-only proxy signed in (or not) to `upstream`; the browser stand-in follows the first `follow` sign-in URLs. */
async function proxyFor(
  upstream: Misbehaving,
  follow: number,
  timeoutMs = 10_000,
): Promise<{ proxy: RunningProxy; signIn: UpstreamSignIn }> {
  open.push({
    close: () => new Promise((resolve) => (upstream.server.closeAllConnections(), upstream.server.close(resolve))),
  });
  const store = new CredentialStore(await tempDir('rewind-oauth-data-'));
  const signIn = new UpstreamSignIn(upstream.url, { store, timeoutMs, requestTimeoutMs: 500 });
  let followed = 0;
  signIn.onChange((info) => {
    if (info.url && followed < follow) {
      followed++;
      void followSignIn(info.url).catch(() => {});
    }
  });
  const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: upstream.url, upstreamAuth: signIn });
  open.push(proxy);
  return { proxy, signIn };
}

/** What an SDK client without credentials gets when it connects: the JSON-RPC error of its initialize. */
async function refusal(url: string): Promise<{ code: number; message: string }> {
  const outcome = await connectClient(url).then(
    async (client) => (await client.close(), undefined),
    (error: { code?: number; message: string }) => ({ code: error.code ?? 0, message: error.message }),
  );
  if (!outcome) throw new Error('the client connected: no failure');
  return outcome;
}

const CASES: Array<{ mode: Misbehaviour; step: SignInStep; says: RegExp; follow: number }> = [
  { mode: 'unreachable', step: 'discovery', says: /unreachable \(ECONNREFUSED\)/, follow: 0 },
  { mode: 'silent', step: 'discovery', says: /http:\/\/127\.0\.0\.1:\d+ did not answer within 0\.5 s/, follow: 0 },
  { mode: 'no-pkce', step: 'discovery', says: /does not advertise PKCE/, follow: 0 },
  {
    mode: 'registration-refused',
    step: 'registration',
    says: /HTTP 400 invalid_client_metadata \(registration is closed\)/,
    follow: 0,
  },
  { mode: 'error-response', step: 'authorization', says: /answered access_denied \(the user said no\)/, follow: 1 },
  { mode: 'wrong-state', step: 'authorization', says: /wrong state/, follow: 1 },
  { mode: 'expired-code', step: 'token', says: /HTTP 400 invalid_grant \(the code expired\)/, follow: 1 },
];

describe('a misbehaving authorization server: the step is named, the proxy serves on', () => {
  for (const c of CASES)
    it(`${c.mode}: the client gets -32007 naming ${c.step}; the state says so; the next request is answered too`, async () => {
      const { proxy, signIn } = await proxyFor(await misbehaving(c.mode), c.follow);
      const first = await refusal(proxy.url);
      expect(first.code).toBe(ErrorCode.SignInFailed);
      expect(first.message).toContain(`failed at ${SIGN_IN_STEP_WORDS[c.step]}: `);
      expect(first.message).toMatch(c.says);
      expect(signIn.info()).toMatchObject({ state: 'failed', step: c.step });
      expect(signIn.info().error).toMatch(c.says);
      // the proxy is still there: its health check answers, and a second client gets an answer of its own
      expect((await fetch(proxy.url.replace('/mcp', '/healthcheck'))).status).toBe(200);
      if (c.follow === 0) expect((await refusal(proxy.url)).code).toBe(ErrorCode.SignInFailed);
    });

  it('a refresh refused: the client gets -32007 naming the refresh once the new sign-in it started is not completed', async () => {
    const { proxy, signIn } = await proxyFor(await misbehaving('refresh-fails'), 1, 1_500);
    const client = await connectClient(proxy.url); // the first sign-in, followed: the token lives 1 s
    expect(signIn.info().state).toBe('signed-in');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const error = await client.client.callTool({ name: 'greet', arguments: { name: 'x' } }).then(
      () => undefined,
      (e: { code?: number; message: string }) => e,
    );
    expect(error?.code).toBe(ErrorCode.SignInFailed);
    expect(error?.message).toMatch(
      /failed at token refresh: HTTP 400 invalid_grant \(the refresh token was revoked\); a new sign-in was started and did not complete: the browser did not come back within 2 s/,
    );
    expect(signIn.info()).toMatchObject({ state: 'failed', step: 'refresh' });
    await client.close();
  });

  it('the control: an authorization server that behaves signs the client in', async () => {
    const { proxy, signIn } = await proxyFor(await misbehaving('none'), 1);
    const client = await connectClient(proxy.url);
    expect(await client.client.callTool({ name: 'greet', arguments: { name: 'x' } })).toEqual({
      content: [{ type: 'text', text: 'Hello, x!' }],
    });
    expect(signIn.info().state).toBe('signed-in');
    await client.close();
  });
});

describe('the CLI with a misbehaving authorization server', () => {
  const clis: Cli[] = [];
  afterEach(async () => {
    for (const cli of clis.splice(0)) await cli.stop();
  });

  it(
    'a wrong state: stderr names the step, the client gets -32007, the process serves on and exits 0 on SIGTERM',
    { timeout: 30_000 },
    async () => {
      const upstream = await misbehaving('wrong-state');
      open.push({
        close: () => new Promise((resolve) => (upstream.server.closeAllConnections(), upstream.server.close(resolve))),
      });
      const cli = await startCli(['--url', upstream.url, '--proxy-only', '--no-open'], {
        MCP_REWIND_DATA_DIR: await tempDir('rewind-oauth-data-'),
      });
      clis.push(cli);
      const [, url] = await cli.waitFor(/needs a sign-in: open (\S+)/);
      const before = upstream.unauthorized();
      const waiting = refusal(cli.url); // waits for the sign-in the CLI started
      while (upstream.unauthorized() === before) await new Promise((resolve) => setTimeout(resolve, 10)); // its initialize reached the upstream
      const page = await followSignIn(url);
      expect(page.status).toBe(400);
      expect(page.body).toContain('wrong state');
      const answer = await waiting;
      expect(answer.code).toBe(ErrorCode.SignInFailed);
      expect(answer.message).toMatch(
        /failed at authorization \(the browser sign-in\): the redirect carried a wrong state/,
      );
      await cli.waitFor(/sign-in to \S+ failed at authorization: the redirect carried a wrong state/);
      expect((await fetch(cli.url.replace('/mcp', '/healthcheck'))).status).toBe(200);
      expect(await cli.stop()).toBe(0);
    },
  );
});
