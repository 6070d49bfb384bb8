/**
 * The app's proxies in front of an OAuth-protected upstream (the SDK's server-side OAuth stack, test/helpers/oauth-as.ts),
 * through the real handler table: a proxy whose upstream answers 401 listens but says *sign-in required*;
 * `proxies.signIn` gives the page to open, and once the browser came back the proxy is *running*, *signed in as* the
 * user; Compose and an agent get the upstream's answers; Sign out makes it ask again. Nothing the app writes —
 * workspace.json, timeline.json, the cassette, a saved HAR — holds a token or a code.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyInfo } from '../../src/shared/api.js';
import { followSignIn, ownAccessToken } from '../helpers/oauth.js';
import { startTestAuthServer } from '../helpers/oauth-as.js';
import { filesBelow, secretsFound } from '../helpers/oauth-cli.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, keep, textOf } from './harness.js';

afterEach(cleanup);

async function until(
  api: Parameters<typeof call>[0],
  id: string,
  wanted: (p: ProxyInfo) => boolean,
): Promise<ProxyInfo> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const proxy = (await call(api, 'proxies.list', {})).find((p) => p.id === id) as ProxyInfo;
    if (wanted(proxy)) return proxy;
    if (Date.now() > deadline) throw new Error(`the proxy stayed ${JSON.stringify(proxy)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the app: a proxy whose upstream wants an OAuth sign-in', () => {
  it('sign-in required → Sign in → running, signed in as the user → Sign out; no file of the app holds a secret', async () => {
    const server = await startTestAuthServer({ user: 'Katherine Johnson' });
    keep(server);
    const { api, controller, dataDir } = await app();
    const cacheDir = path.join(await tempDir(), 'cassette');
    const created = await call(api, 'proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir });
    expect(created.state).toBe('sign-in-required');
    expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/); // it listens: an agent's calls wait for the sign-in

    const { url, opened } = await call(api, 'proxies.signIn', { id: created.id });
    expect(opened).toBe(false); // no desktop opener here: the UI opens the page
    expect(new URL(url).searchParams.get('resource')).toBe(server.url);
    const page = await followSignIn(url);
    expect(page.body).toContain('Signed in to');
    const running = await until(api, created.id, (p) => p.state === 'running');
    expect(running.signIn).toMatchObject({ state: 'signed-in', user: 'Katherine Johnson' });

    const composed = await call(api, 'exchange.send', {
      proxyId: created.id,
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 'app' } },
      kind: 'compose',
    });
    expect(textOf((composed.response as { result: unknown }).result)).toBe('Hello, app!');
    const agent = await client(created.url as string);
    expect(textOf(await agent.client.callTool({ name: 'greet', arguments: { name: 'agent' } }))).toBe('Hello, agent!');
    await agent.close();
    if (composed.seq !== undefined)
      await call(api, 'traffic.annotate', { seq: composed.seq, pinned: true, note: 'kept' });
    const har = path.join(await tempDir(), 'saved.har');
    await call(api, 'traffic.save', { format: 'har', out: har });

    const out = await call(api, 'proxies.signOut', { id: created.id });
    expect(out.id).toBe(created.id);
    const again = await until(api, created.id, (p) => p.state === 'sign-in-required');
    expect(again.signIn).toBeUndefined();

    await controller.close();
    const written = [...(await filesBelow(dataDir)), ...(await filesBelow(cacheDir)), har];
    expect(written.map((f) => path.basename(f))).toEqual(
      expect.arrayContaining(['workspace.json', 'timeline.json', 'saved.har']),
    );
    expect(await secretsFound(written, {}, { ...server.secrets })).toEqual([]);
  });

  it("an agent's own token gets through: sign-in required → running (client's own sign-in); the exchange keeps its scheme only", async () => {
    const server = await startTestAuthServer();
    keep(server);
    const token = await ownAccessToken(server.url); // the agent signed in to the upstream by itself
    const { api } = await app();
    const created = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    expect(created.state).toBe('sign-in-required'); // the start probe's 401

    const agent = await client(created.url as string, { headers: { Authorization: `Bearer ${token}` } });
    expect(textOf(await agent.client.callTool({ name: 'greet', arguments: { name: 'own' } }))).toBe('Hello, own!');
    await agent.close();
    const running = await until(api, created.id, (p) => p.state === 'running');
    expect(running.signIn).toEqual({ state: 'client' });
    expect(server.authorizations).toHaveLength(1); // the agent's own: the proxy signed in to nothing

    const calls = (await call(api, 'traffic.snapshot', {})).filter((e) => e.method === 'tools/call');
    expect(calls.map((e) => e.authorization)).toEqual(['Bearer']);
    expect(JSON.stringify(calls)).not.toContain(token);
  });

  it('oauth.disabled: the proxy does not sign in (its upstream refuses it: failed, naming the 401)', async () => {
    const server = await startTestAuthServer();
    keep(server);
    const { api } = await app();
    const created = await call(api, 'proxies.create', {
      mode: 'proxy-only',
      upstreamUrl: server.url,
      oauth: { disabled: true },
    });
    expect(created.state).toBe('failed');
    expect(created.error).toMatch(/401/);
    expect(server.authorizations).toEqual([]);
  });
});
