/**
 * Issue 24 on the SDK's server-side OAuth stack (mcpAuthRouter, requireBearerAuth with audience check) with a provider
 * of the test's own (test/helpers/oauth-as.ts): tokens that expire in seconds are refreshed before expiry, a 403
 * insufficient_scope is answered by a step-up sign-in asking for the granted and the challenged scopes, a client id and
 * secret given with --oauth-client-id / --oauth-client-secret-file (never argv) are used, "signed in as" names the
 * user; and no file the proxy wrote and no line it printed holds an access token, a refresh token, a code, a PKCE
 * verifier or the client secret. The built CLI as a real process (`npm run build:cli`).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectClient } from '../fixtures/client.js';
import { followSignIn } from '../helpers/oauth.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-as.js';
import { filesBelow, runCliWith, secretsFound, startCli, type Cli } from '../helpers/oauth-cli.js';
import { closedPort } from '../helpers/ports.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const running: Array<Cli | TestAuthServer> = [];
afterEach(async () => {
  for (const thing of running.splice(0).reverse()) await ('stop' in thing ? thing.stop() : thing.close());
});
afterAll(removeTempDirs);

const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

async function keptToken(data: string): Promise<string> {
  const folder = path.join(data, 'oauth');
  const [file] = await readdir(folder);
  return (JSON.parse(await readFile(path.join(folder, file), 'utf8')) as { tokens: { access_token: string } }).tokens
    .access_token;
}

/**
 * follows the next sign-in URL the CLI prints after `seen` of them: its "mcp-rewind: … needs a sign-in" lines (the
 * banner may repeat the first URL, if the sign-in has one by the time it is printed)
 */
async function signIn(cli: Cli, seen: number): Promise<void> {
  const all = async (): Promise<string[]> =>
    [...cli.output().matchAll(/^mcp-rewind: \S+ needs a sign-in[^\n]*: open (\S+)/gm)].map((m) => m[1]);
  await cli.waitFor(new RegExp(`(^mcp-rewind: \\S+ needs a sign-in[^\\n]*: open \\S+[\\s\\S]*){${seen + 1}}`, 'm'));
  const followed = await followSignIn((await all())[seen]);
  expect(followed.body).toContain('Signed in to');
}

describe('sign-in lifetime: refresh before expiry, step-up on 403 insufficient_scope, a given client', () => {
  it(
    'refreshes a token before it expires, steps up for a scope, and writes no secret anywhere',
    { timeout: 60_000 },
    async () => {
      const server = await startTestAuthServer({ tokenLifetimeS: 2, user: 'Ada Lovelace' });
      running.push(server);
      const data = await tempDir('rewind-oauth-data-');
      const work = await tempDir('rewind-oauth-work-');
      const cassette = path.join(work, 'cassette');
      const cli = await startCli(['--url', server.url, '-c', cassette, '--no-open', '-v'], {
        MCP_REWIND_DATA_DIR: data,
      });
      running.push(cli);
      await signIn(cli, 0);
      await cli.waitFor(/signed in to \S+ as Ada Lovelace/);
      expect(server.authorizations[0]).toEqual({ scopes: ['mcp:read'], resource: server.url });

      const client = await connectClient(cli.url);
      expect(text(await client.client.callTool({ name: 'greet', arguments: { name: 'one' } }))).toBe('Hello, one!');
      const first = await keptToken(data);
      const refusedBefore = server.refused;
      await new Promise((resolve) => setTimeout(resolve, 1_600)); // the last quarter of the 2 s token's life
      expect(text(await client.client.callTool({ name: 'greet', arguments: { name: 'two' } }))).toBe('Hello, two!');
      expect(server.refreshes).toBeGreaterThanOrEqual(1);
      expect(await keptToken(data)).not.toBe(first);
      expect(server.refused).toBe(refusedBefore); // refreshed before expiry: the server never saw an expired token

      // a tool that needs mcp:write: 403 insufficient_scope → a new sign-in for read + write; the call waits for it
      const write = client.client.callTool({ name: 'write-note', arguments: { text: 'hi' } });
      await signIn(cli, 1);
      expect(text(await write)).toBe('noted: hi');
      expect(server.authorizations[1].scopes.sort()).toEqual(['mcp:read', 'mcp:write']);
      await client.close();

      const log = cli.output();
      await cli.stop();
      const har = path.join(work, 'export.har');
      const single = path.join(work, 'export.json');
      expect((await runCliWith(['export', '-c', cassette, '--har', har, '--out', single], {})).code).toBe(0);
      const written = [...(await filesBelow(cassette)), har, single];
      expect(written.length).toBeGreaterThan(8);
      expect(await secretsFound(written, { 'proxy log': log }, { ...server.secrets })).toEqual([]);
      // the scan finds what is there: the tokens are in the data folder's sign-in file, as they must be
      expect(
        await secretsFound(
          await filesBelow(path.join(data, 'oauth')),
          {},
          { 'access token': server.secrets.accessTokens.slice(-1) },
        ),
      ).toHaveLength(1);
      expect(server.secrets.verifiers.length).toBe(2); // two sign-ins, each with its own verifier, none of them written
      expect(server.secrets.refreshTokens.length).toBeGreaterThanOrEqual(3);
    },
  );

  it(
    'signs in as a client given with --oauth-client-id and a secret from a file; the secret is in no argv, file or log',
    { timeout: 60_000 },
    async () => {
      const port = await closedPort();
      const secret = 'client-secret-XYZ-0123456789';
      const server = await startTestAuthServer({
        preRegistered: {
          clientId: 'mcp-rewind-test',
          clientSecret: secret,
          redirectUri: `http://127.0.0.1:${port}/callback`,
        },
      });
      running.push(server);
      const data = await tempDir('rewind-oauth-data-');
      const work = await tempDir('rewind-oauth-work-');
      const secretFile = path.join(work, 'secret.txt');
      await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
      const cassette = path.join(work, 'cassette');
      const args = [
        '--url',
        server.url,
        '-c',
        cassette,
        '--no-open',
        '-v',
        '--oauth-client-id',
        'mcp-rewind-test',
        '--oauth-client-secret-file',
        secretFile,
      ];
      const cli = await startCli([...args, '--oauth-callback-port', String(port)], { MCP_REWIND_DATA_DIR: data });
      running.push(cli);
      await signIn(cli, 0);
      await cli.waitFor(/signed in to/);
      const client = await connectClient(cli.url);
      expect(text(await client.client.callTool({ name: 'greet', arguments: { name: 'given' } }))).toBe('Hello, given!');
      await client.close();
      const log = cli.output();
      await cli.stop();
      const kept = await readFile(path.join(data, 'oauth', (await readdir(path.join(data, 'oauth')))[0]), 'utf8');
      expect(kept).not.toContain(secret); // a given client is the user's: its secret stays in the user's file
      expect(await secretsFound(await filesBelow(cassette), { 'proxy log': log }, { ...server.secrets })).toEqual([]);
    },
  );
});
