/**
 * The parts of the proxy's OAuth client, each on its own: the loopback callback (state checked in constant time, Host
 * checked, one redirect settles it, a timeout ends it), the credential store (owner-only files, safe names), the
 * challenge parser (which 401/403 a sign-in can cure) and the provider's resource indicator (the upstream's URL).
 */
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenForCallback } from '../../src/main/engine/upstream/oauth/callback.js';
import { challengeOf } from '../../src/main/engine/upstream/oauth/challenge.js';
import { CredentialStore } from '../../src/main/engine/upstream/oauth/credentials.js';
import { RewindOAuthProvider, StepError, userOf } from '../../src/main/engine/upstream/oauth/provider.js';

/** a GET with the Host header a browser (or a rebinding page) would send */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const settled = <T>(p: Promise<T>): Promise<{ value?: T; error?: string }> =>
  p.then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.message }),
  );

describe('the loopback callback', () => {
  it('gives the code when the state matches; the page says so and never shows the code', async () => {
    const callback = await listenForCallback({
      port: 0,
      state: 's'.repeat(43),
      timeoutMs: 5_000,
      label: 'http://up/mcp',
    });
    const page = await get(`${callback.url}?code=the-code-123&state=${'s'.repeat(43)}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Signed in to http://up/mcp');
    expect(page.body).not.toContain('the-code-123');
    expect(await callback.code).toBe('the-code-123');
  });

  it('refuses a wrong or missing state, and an error answer, naming what came back', async () => {
    for (const [query, says] of [
      ['code=c&state=forged', 'wrong state'],
      ['code=c', 'wrong state'],
      [
        'error=access_denied&error_description=no%20thanks&state=right',
        'the authorization server answered access_denied (no thanks)',
      ],
    ]) {
      const callback = await listenForCallback({ port: 0, state: 'right', timeoutMs: 5_000, label: 'x' });
      const page = await get(`${callback.url}?${query}`);
      expect(page.status).toBe(400);
      expect((await settled(callback.code)).error).toContain(says);
    }
  });

  it('ignores other paths and refuses a foreign Host without settling; a timeout ends it', async () => {
    const callback = await listenForCallback({ port: 0, state: 'right', timeoutMs: 300, label: 'x' });
    const port = new URL(callback.url).port;
    expect((await get(`http://127.0.0.1:${port}/favicon.ico`)).status).toBe(404);
    expect((await get(`${callback.url}?code=c&state=right`, `evil.example:${port}`)).status).toBe(403);
    expect((await settled(callback.code)).error).toBe('the browser did not come back within 0.3 s');
  });
});

describe('the credential store', () => {
  it('writes owner-only files in an owner-only folder, one per upstream, named by host and hash', async () => {
    const store = new CredentialStore(await mkdtemp(path.join(tmpdir(), 'rewind-cred-')));
    await store.write({ upstream: 'http://Example.COM:8080/mcp#frag' });
    await store.write({ upstream: 'http://example.com:8080/other' });
    const names = (await readdir(store.dir)).sort();
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^example\.com_8080-[0-9a-f]{16}\.json$/);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    for (const name of names) expect((await stat(path.join(store.dir, name))).mode & 0o777).toBe(0o600);
    expect(store.read('http://example.com:8080/mcp')?.upstream).toBe('http://example.com:8080/mcp');
    expect(
      store
        .list()
        .map((s) => s.upstream)
        .sort(),
    ).toEqual(['http://example.com:8080/mcp', 'http://example.com:8080/other']);
    expect(await store.remove('http://example.com:8080/mcp')).toBe(true);
    expect(await store.remove('http://example.com:8080/mcp')).toBe(false);
  });
});

describe('challenges and resources', () => {
  it('a 401 with a Bearer challenge, or a 403 insufficient_scope; nothing else', () => {
    expect(
      challengeOf(401, 'Bearer resource_metadata="http://a/.well-known/oauth-protected-resource/mcp", scope="x y"'),
    ).toEqual({
      status: 401,
      resourceMetadataUrl: new URL('http://a/.well-known/oauth-protected-resource/mcp'),
      scope: 'x y',
      error: undefined,
    });
    expect(challengeOf(403, 'Bearer error="insufficient_scope", scope="x y z"')).toMatchObject({
      status: 403,
      scope: 'x y z',
      error: 'insufficient_scope',
    });
    expect(challengeOf(403, 'Bearer error="invalid_token"')).toBeUndefined();
    expect(challengeOf(401, 'Basic realm="x"')).toBeUndefined();
    expect(challengeOf(401, undefined)).toBeUndefined();
    expect(challengeOf(200, 'Bearer')).toBeUndefined();
  });

  it('the resource is the upstream URL; metadata naming another server is refused', async () => {
    const record = { get: () => ({ upstream: 'http://a:1/mcp' }), update: async () => {} };
    const provider = new RewindOAuthProvider('http://a:1/mcp', record, {
      redirectUrl: 'http://127.0.0.1:2/callback',
      state: 's',
      fresh: true,
    });
    expect((await provider.validateResourceURL('http://a:1/mcp', 'http://a:1/mcp')).href).toBe('http://a:1/mcp');
    expect((await provider.validateResourceURL('http://a:1/mcp')).href).toBe('http://a:1/mcp');
    await expect(provider.validateResourceURL('http://a:1/mcp', 'http://b:1/mcp')).rejects.toBeInstanceOf(StepError);
    await expect(
      provider.saveDiscoveryState({ authorizationServerUrl: 'http://as/', authorizationServerMetadata: undefined }),
    ).rejects.toThrow(/no authorization server metadata/);
  });

  it("names the user from an id_token's claims", () => {
    const token = (claims: object): string => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    expect(userOf(token({ sub: 'u1', email: 'a@b.c' }))).toBe('a@b.c');
    expect(userOf(token({ sub: 'u1', name: 'Ada' }))).toBe('Ada');
    expect(userOf('not a jwt')).toBeUndefined();
    expect(userOf(undefined)).toBeUndefined();
  });
});
