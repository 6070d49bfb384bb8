/**
 * `serve` sessions in front of an OAuth-protected upstream (the SDK's server-side OAuth stack, test/helpers/oauth-as.ts):
 * the session signs in as the upstream's OAuth client — the sign-in URL is in the session detail (`sign_in.url`), the
 * state turns `signed-in` (with the user) once the browser came back — and its agent, with only its session token,
 * gets the upstream's answers. The detail never shows a token; `oauth: false` keeps the 401 the agent's business.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { followSignIn } from '../helpers/oauth.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-as.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { agent, cleanup, instance, keep, textOf, type Rest } from './harness.js';

afterEach(cleanup);
afterAll(removeTempDirs);

async function upstream(): Promise<TestAuthServer> {
  const server = await startTestAuthServer({ user: 'Grace Hopper' });
  return keep(server as TestAuthServer & { close(): Promise<void> });
}

/** polls the session detail until `sign_in` matches */
async function signInOf(
  api: Rest,
  sid: string,
  until: (signIn: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const signIn = ((await api.detail(sid)) as unknown as { sign_in: Record<string, unknown> }).sign_in;
    if (until(signIn)) return signIn;
    if (Date.now() > deadline) throw new Error(`sign_in stayed ${JSON.stringify(signIn)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('serve: a session whose upstream wants an OAuth sign-in', () => {
  it('shows the sign-in URL in the session detail, then signed in as the user; the agent needs no credential of the upstream', async () => {
    const server = await upstream();
    const { api } = await instance({ dataDir: await tempDir('rewind-serve-oauth-') });
    const session = await api.create({ upstream: { url: server.url } });
    const waiting = await signInOf(api, session.session_id, (s) => typeof s.url === 'string');
    expect(waiting).toMatchObject({ state: 'required', user: null, error: null });
    expect(new URL(waiting.url as string).searchParams.get('resource')).toBe(server.url);

    expect((await followSignIn(waiting.url as string)).body).toContain('Signed in to');
    const signedIn = await signInOf(api, session.session_id, (s) => s.state === 'signed-in');
    expect(signedIn).toMatchObject({ state: 'signed-in', user: 'Grace Hopper', url: null, scope: 'mcp:read' });

    const c = await agent(session);
    expect(textOf(await c.client.callTool({ name: 'greet', arguments: { name: 'serve' } }))).toBe('Hello, serve!');
    const detail = JSON.stringify(await api.detail(session.session_id));
    for (const token of [...server.secrets.accessTokens, ...server.secrets.refreshTokens])
      expect(detail).not.toContain(token);
  });

  it('oauth: false: no sign-in; as before, a session on an upstream that only answers 401 is refused, naming the 401', async () => {
    const server = await upstream();
    const { api } = await instance({ dataDir: await tempDir('rewind-serve-oauth-') });
    const answer = await api.request<{ message: string }>('POST', '/api/sessions', {
      upstream: { url: server.url, oauth: false },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/did not answer an MCP initialize: .*\b401\b/);
    expect(server.authorizations).toEqual([]);
  });
});
