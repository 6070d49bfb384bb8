/**
 * Issue 24 against the SDK's own OAuth-protected example server and its demo authorization server (nobody's mock):
 * the built CLI records through the sign-in it starts on the upstream's 401 — the test follows the printed URL with a
 * real HTTP client, as a browser would —, an SDK client without credentials gets the answers a client that signed in
 * directly gets, `--oauth-strict` (audience-checked tokens: resource = the upstream's URL) works, replay needs no
 * sign-in with both servers stopped, and no written file (cassette, debug files, HAR, logs) holds the token or the
 * code. Needs the built CLI (`npm run build:cli`).
 */
import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient } from '../fixtures/client.js';
import { followSignIn, signedInClient, startDemoOAuthServer, type DemoOAuthServer } from '../helpers/oauth.js';
import { filesBelow, runCliWith, secretsFound, startCli, type Cli } from '../helpers/oauth-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const running: Array<Cli | DemoOAuthServer> = [];
afterEach(async () => {
  for (const thing of running.splice(0).reverse()) await thing.stop();
});
afterAll(removeTempDirs);

/** What a client sees of the server: its tool names, and what greet answers. */
async function answers(client: Client): Promise<{ tools: string[]; greet: unknown }> {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  return { tools, greet: await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }) };
}

async function recordThroughSignIn(
  server: DemoOAuthServer,
  data: string,
  cassette: string,
): Promise<{ cli: Cli; code: string }> {
  const cli = await startCli(['--url', server.url, '-c', cassette, '--no-open', '-v'], { MCP_REWIND_DATA_DIR: data });
  running.push(cli);
  const [, signInUrl] = await cli.waitFor(/needs a sign-in: open (\S+)/);
  expect(new URL(signInUrl).searchParams.get('resource')).toBe(server.url); // RFC 8707: the upstream, not the proxy
  const followed = await followSignIn(signInUrl);
  expect(followed.status).toBe(200);
  expect(followed.body).toContain('Signed in to');
  await cli.waitFor(/signed in to http:\/\/localhost:\d+\/mcp/);
  return { cli, code: followed.callback?.searchParams.get('code') ?? '' };
}

describe('an OAuth-protected server: the SDK example with its demo authorization server', () => {
  it(
    'records through the proxy after a sign-in, answers like a directly signed-in client, replays with both servers stopped; no file holds a secret',
    { timeout: 90_000 },
    async () => {
      const server = await startDemoOAuthServer();
      running.push(server);
      const data = await tempDir('rewind-oauth-data-');
      const work = await tempDir('rewind-oauth-work-');
      const cassette = path.join(work, 'cassette');
      const { cli, code } = await recordThroughSignIn(server, data, cassette);

      const viaProxy = await connectClient(cli.url); // no credentials at all
      const recorded = await answers(viaProxy.client);
      await viaProxy.close();
      const direct = await signedInClient(server.url);
      expect(recorded).toEqual(await answers(direct));
      await direct.close();
      expect(recorded.tools).toContain('greet');

      // the tokens: owner-only, in the data folder, one file per upstream
      const folder = path.join(data, 'oauth');
      const [file] = await readdir(folder);
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(folder, file)).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(await readFile(path.join(folder, file), 'utf8')) as {
        upstream: string;
        tokens: { access_token: string };
      };
      expect(kept.upstream).toBe(server.url);

      const recordLog = cli.output();
      await cli.stop();
      await server.stop();
      // replay: both servers gone, a data folder with no sign-in in it
      const emptyData = await tempDir('rewind-oauth-none-');
      const replay = await startCli(['--replay', '-c', cassette, '-v'], { MCP_REWIND_DATA_DIR: emptyData });
      running.push(replay);
      const replayed = await connectClient(replay.url);
      expect(await answers(replayed.client)).toEqual(recorded);
      await replayed.close();
      const har = path.join(work, 'export.har');
      expect((await runCliWith(['export', '-c', cassette, '--har', har], {})).code).toBe(0);
      await replay.stop();

      const written = [...(await filesBelow(cassette)), har, ...(await filesBelow(emptyData))];
      expect(written.length).toBeGreaterThan(8);
      const found = await secretsFound(
        written,
        { 'record log': recordLog, 'replay log': replay.output() },
        {
          'access token': [kept.tokens.access_token],
          'authorization code': [code],
        },
      );
      expect(found).toEqual([]);
      expect(code).not.toBe('');
    },
  );

  it(
    '--oauth-strict (tokens bound to the upstream URL): the proxy signs in and is answered',
    { timeout: 60_000 },
    async () => {
      const server = await startDemoOAuthServer({ strict: true });
      running.push(server);
      const { cli } = await recordThroughSignIn(
        server,
        await tempDir('rewind-oauth-data-'),
        path.join(await tempDir(), 'cassette'),
      );
      const client = await connectClient(cli.url);
      const seen = await answers(client.client);
      await client.close();
      const direct = await signedInClient(server.url);
      expect(seen).toEqual(await answers(direct));
      await direct.close();
      // the strict server accepted the token, so it was issued for its own URL: a call went through
      expect(JSON.stringify(seen.greet)).toContain('Hello, Ada!');
    },
  );

  it(
    '--no-oauth keeps the old behaviour: the 401 is not answered by a sign-in (the CLI refuses the upstream, naming the 401)',
    { timeout: 30_000 },
    async () => {
      const server = await startDemoOAuthServer();
      running.push(server);
      const run = await runCliWith(['--url', server.url, '-c', path.join(await tempDir(), 'c'), '--no-oauth'], {
        MCP_REWIND_DATA_DIR: await tempDir(),
      });
      expect(run.code).toBe(1);
      expect(run.output).toMatch(/did not answer an MCP initialize: .*\b401\b/);
      expect(run.output).not.toContain('sign-in');
    },
  );
});
