/**
 * `mcp-rewind auth status | login <url> | logout <url>` and `verify` against an OAuth-protected server (the SDK's
 * server-side OAuth stack, test/helpers/oauth-as.ts), the built CLI as real processes sharing one data folder:
 * a sign-in made by `auth login` is used by the proxy (no new sign-in) and by `verify`; without it, `verify` says
 * how to sign in; `logout` forgets it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectClient } from '../fixtures/client.js';
import { followSignIn } from '../helpers/oauth.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-as.js';
import { runCliWith, startCli, type Cli } from '../helpers/oauth-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const running: Array<Cli | TestAuthServer> = [];
afterEach(async () => {
  for (const thing of running.splice(0).reverse()) await ('stop' in thing ? thing.stop() : thing.close());
});
afterAll(removeTempDirs);

describe('auth status | login | logout, and verify with the stored sign-in', () => {
  it('login once; the proxy and verify use that sign-in; logout forgets it', { timeout: 60_000 }, async () => {
    const server = await startTestAuthServer({ user: 'Ada Lovelace' });
    running.push(server);
    const env = { MCP_REWIND_DATA_DIR: await tempDir('rewind-oauth-data-') };
    expect((await runCliWith(['auth', 'status'], env)).output).toMatch(/^no sign-in kept in .*oauth\n$/);

    const login = await startCli(['auth', 'login', server.url, '--no-open'], env, false);
    running.push(login);
    const [, url] = await login.waitFor(/needs a sign-in: open (\S+)/);
    await followSignIn(url);
    const code = await new Promise((resolve) => login.child.once('exit', resolve));
    expect(code).toBe(0);
    expect(login.output()).toContain(`signed in to ${server.url} as Ada Lovelace`);
    expect((await runCliWith(['auth', 'status'], env)).output).toMatch(
      new RegExp(`^signed in to ${server.url} as Ada Lovelace \\(token until .*\\), refreshable\\n$`),
    );

    // the proxy finds the sign-in: no new one, and its client is answered at once
    const cassette = path.join(await tempDir(), 'cassette');
    const proxy = await startCli(['--url', server.url, '-c', cassette, '--no-open'], env);
    running.push(proxy);
    expect(proxy.output()).toContain('sign-in       signed in to the upstream as Ada Lovelace');
    const client = await connectClient(proxy.url);
    await client.client.callTool({ name: 'greet', arguments: { name: 'verify me' } });
    await client.close();
    await proxy.stop();
    expect(proxy.output()).not.toContain('needs a sign-in');
    expect(server.authorizations).toHaveLength(1);

    // hybrid: a recorded call from the cassette, a new one upstream with the kept token
    const hybrid = await startCli(['--replay', '--url', server.url, '-c', cassette, '--no-open'], env);
    running.push(hybrid);
    const mixed = await connectClient(hybrid.url);
    expect(await mixed.client.callTool({ name: 'greet', arguments: { name: 'verify me' } })).toEqual({
      content: [{ type: 'text', text: 'Hello, verify me!' }],
    });
    expect(await mixed.client.callTool({ name: 'greet', arguments: { name: 'new' } })).toEqual({
      content: [{ type: 'text', text: 'Hello, new!' }],
    });
    await mixed.close();
    await hybrid.stop();
    expect(server.authorizations).toHaveLength(1);

    const verified = await runCliWith(['verify', '-c', cassette, '--url', server.url], env);
    expect(verified.output).toContain('0 drift');
    expect(verified.code).toBe(0);
    // without the stored sign-in: verify cannot open a browser, and says what to do
    const without = await runCliWith(['verify', '-c', cassette, '--url', server.url], {
      MCP_REWIND_DATA_DIR: await tempDir('rewind-oauth-none-'),
    });
    expect(without.code).toBe(1);
    expect(without.output).toContain(
      `${server.url} needs a sign-in: sign in first (mcp-rewind auth login ${server.url}`,
    );
    const refused = await runCliWith(['verify', '-c', cassette, '--url', server.url, '--no-oauth'], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/\b401\b/);

    const logout = await runCliWith(['auth', 'logout', server.url], env);
    expect(logout).toEqual({ code: 0, output: `signed out of ${server.url}\n` });
    expect((await runCliWith(['auth', 'status'], env)).output).toMatch(/^no sign-in kept in/);
    expect((await runCliWith(['auth', 'logout', server.url], env)).output).toBe(`no sign-in kept for ${server.url}\n`);
    expect(existsSync(path.join(env.MCP_REWIND_DATA_DIR, 'oauth'))).toBe(true);
  });

  it('usage errors: an action that does not exist, a missing URL, a secret file without a client id (exit 2)', async () => {
    const env = { MCP_REWIND_DATA_DIR: await tempDir('rewind-oauth-data-') };
    expect(await runCliWith(['auth', 'sideways'], env)).toEqual({
      code: 2,
      output: 'mcp-rewind: auth: the action must be status, login or logout, got "sideways"\n',
    });
    expect(await runCliWith(['auth', 'login'], env)).toEqual({
      code: 2,
      output: "mcp-rewind: auth login needs the upstream's URL\n",
    });
    const run = await runCliWith(
      ['--url', 'http://127.0.0.1:9/mcp', '--oauth-client-secret-file', '/nonexistent'],
      env,
    );
    expect(run).toEqual({ code: 2, output: 'mcp-rewind: --oauth-client-secret-file needs --oauth-client-id\n' });
  });
});
