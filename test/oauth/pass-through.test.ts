/**
 * A client that brings its own Authorization (it signed in to the upstream itself) keeps today's pass-through while
 * the proxy holds no sign-in for that upstream, and the sign-in's state says so (`client`); once the proxy owns the
 * sign-in (a client without a token made it sign in), its token replaces whatever a client sends. The SDK's
 * server-side OAuth stack (test/helpers/oauth-as.ts), the proxy in-process.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { CredentialStore } from '../../src/main/engine/upstream/oauth/credentials.js';
import { UpstreamSignIn } from '../../src/main/engine/upstream/oauth/sign-in.js';
import { connectClient } from '../fixtures/client.js';
import { followSignIn, signedInClient } from '../helpers/oauth.js';
import { startTestAuthServer } from '../helpers/oauth-as.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});
afterAll(removeTempDirs);

const greet = { name: 'greet', arguments: { name: 'x' } };

describe("a client's own Authorization", () => {
  it('passes through while the proxy holds no sign-in (state: client); once the proxy signs in, its token wins', async () => {
    const server = await startTestAuthServer();
    open.push(server);
    const direct = await signedInClient(server.url); // the client signed in to the upstream by itself
    open.push(direct);
    const own = server.secrets.accessTokens[0];
    const signIn = new UpstreamSignIn(server.url, { store: new CredentialStore(await tempDir('rewind-oauth-data-')) });
    const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: server.url, upstreamAuth: signIn });
    open.push(proxy);

    const bringsToken = await connectClient(proxy.url, { headers: { Authorization: `Bearer ${own}` } });
    open.push(bringsToken);
    expect(await bringsToken.client.callTool(greet)).toEqual({ content: [{ type: 'text', text: 'Hello, x!' }] });
    expect(signIn.info().state).toBe('client');
    expect(server.authorizations).toHaveLength(1); // the direct client's own: the proxy signed in to nothing

    // a client without a token: the proxy becomes the upstream's OAuth client (the test follows its sign-in)
    signIn.onChange((info) => void (info.url && followSignIn(info.url)));
    const noToken = await connectClient(proxy.url);
    open.push(noToken);
    expect(signIn.info().state).toBe('signed-in');
    expect(server.authorizations).toHaveLength(2);

    // the proxy owns the sign-in now: a client's token (here a wrong one) is replaced by the proxy's
    const wrongToken = await connectClient(proxy.url, { headers: { Authorization: 'Bearer not-a-token' } });
    open.push(wrongToken);
    expect(await wrongToken.client.callTool(greet)).toEqual({ content: [{ type: 'text', text: 'Hello, x!' }] });
  });

  it('gets through after a sign-in of the proxy failed: the state turns from failed to client', async () => {
    const server = await startTestAuthServer();
    open.push(server);
    const direct = await signedInClient(server.url);
    open.push(direct);
    const own = server.secrets.accessTokens[0];
    const store = new CredentialStore(await tempDir('rewind-oauth-data-'));
    const signIn = new UpstreamSignIn(server.url, { store, timeoutMs: 300 });
    await expect(signIn.signIn()).rejects.toThrow(/authorization/); // nobody follows the page: it times out
    expect(signIn.info().state).toBe('failed');
    const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: server.url, upstreamAuth: signIn });
    open.push(proxy);

    const bringsToken = await connectClient(proxy.url, { headers: { Authorization: `Bearer ${own}` } });
    open.push(bringsToken);
    expect(await bringsToken.client.callTool(greet)).toEqual({ content: [{ type: 'text', text: 'Hello, x!' }] });
    expect(signIn.info().state).toBe('client');
    expect(server.authorizations).toHaveLength(1); // the direct client's own
  });
});
