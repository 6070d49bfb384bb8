/**
 * Secrets scan: a representative session — record through the CLI (`node bin/mcp-rewind.js -v`, logs captured) with
 * Authorization / Cookie / X-Api-Key headers, an upstream URL with user:password@ and ?api_key=, and a secret inside
 * tool arguments and results covered by a user-configured `--redact` pattern; then replay through the CLI; then export
 * (single file + HAR, src/main/engine/cassette/export.ts). Every file written below the test's temp root (cassette,
 * exports, HOME and XDG data dirs of the children) and every log line is scanned for every secret, raw and in its
 * base64 and URL-encoded forms: 0 occurrences.
 *
 * Needs the built CLI (dist/main/cli.js: `npm run build:cli`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { exportHar, exportSingleFile } from '../../src/main/engine/cassette/export.js';
import { connectClient } from '../fixtures/client.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { REPO, removeRobustTempDirs, tempDir, textOf, until } from '../engine/robustness-helpers.js';

const BIN = path.join(REPO, 'bin/mcp-rewind.js');

const AUTH_TOKEN = 'sk-live-AUTHSECRET-7f3a9c';
const COOKIE_VALUE = 'COOKIESECRET-55aa01';
const API_KEY = 'APIKEYSECRET-0c0ffee';
const URL_USER = 'urluser';
const URL_PASSWORD = 'URLPASSSECRET-99x';
const QUERY_KEY = 'QUERYSECRET-1234y';
/**
 * Credential headers that no fixed list caught (each seen verbatim in .req.json and HAR files before), and look-alikes:
 * every header whose name says auth, key, token, secret, signature, password, session, cookie, credential or api.
 */
const CREDENTIAL_HEADERS: Record<string, string> = {
  'Ocp-Apim-Subscription-Key': 'OCPAPIMSECRET-a1b2',
  'X-Auth-Key': 'XAUTHKEYSECRET-c3d4',
  Authentication: 'AUTHENTICATIONSECRET-e5f6',
  'x-functions-key': 'FUNCTIONSKEYSECRET-g7h8',
  'X-Auth': 'XAUTHSECRET-i9j0',
  Signature: 'SIGNATURESECRET-k1l2',
  'X-Goog-Api-Key': 'GOOGAPIKEYSECRET-m3',
  'X-Amz-Security-Token': 'AMZSECTOKENSECRET-n4',
  'Private-Token': 'PRIVATETOKENSECRET-o5',
  'X-Vault-Token': 'VAULTTOKENSECRET-p6',
  'DD-API-KEY': 'DDAPIKEYSECRET-q7',
  'X-Client-Secret': 'CLIENTSECRETSECRET-r8',
  'X-Hub-Signature-256': 'HUBSIGSECRET-s9',
  'Proxy-Authorization': 'PROXYAUTHSECRET-t0',
  Apikey: 'APIKEYHDRSECRET-u1',
  'X-Db-Password': 'DBPASSWORDSECRET-v2',
  'X-Session-Key': 'SESSIONKEYSECRET-w3',
  'X-Upstream-Credential': 'CREDENTIALSECRET-x4',
  'X-Api-Version-Token': 'APIVERSIONTOKENSECRET-y5',
};

/** a secret only the user's --redact pattern knows about: in tool arguments and in tool results */
const CUSTOM_SECRET = 'INTERNAL-TOKEN-qwertyzz';
const CUSTOM_PATTERN = 'INTERNAL-TOKEN-[a-z]+';

/** every secret, in every form it could take on disk or in a log */
function needles(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (label: string, value: string): void => {
    out.set(`${label} (raw)`, value);
    out.set(`${label} (base64)`, Buffer.from(value).toString('base64').replace(/=+$/, ''));
    out.set(`${label} (base64url)`, Buffer.from(value).toString('base64url'));
    if (encodeURIComponent(value) !== value) out.set(`${label} (url-encoded)`, encodeURIComponent(value));
  };
  add('bearer token', AUTH_TOKEN);
  add('Authorization header', `Bearer ${AUTH_TOKEN}`);
  add('cookie', COOKIE_VALUE);
  add('Cookie header', `sid=${COOKIE_VALUE}; theme=dark`);
  add('X-Api-Key', API_KEY);
  add('URL password', URL_PASSWORD);
  add('URL user:password (Basic)', `${URL_USER}:${URL_PASSWORD}`);
  add('api_key query', QUERY_KEY);
  add('--redact secret', CUSTOM_SECRET);
  for (const [name, value] of Object.entries(CREDENTIAL_HEADERS)) add(`${name} header`, value);
  return out;
}

interface Cli {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

async function startCli(args: string[], env: NodeJS.ProcessEnv): Promise<Cli> {
  const child = spawn(process.execPath, [BIN, '-v', ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(() => /MCP endpoint\s+(http\S+)/.test(output) || child.exitCode !== null, 15_000, 'the CLI banner').catch(
    (e: Error) => {
      throw new Error(`${e.message}\n${output}`);
    },
  );
  const url = /MCP endpoint\s+(http\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`the CLI did not start:\n${output}`);
  return {
    child,
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); // finishes pending writes
      await exited;
    },
  };
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

afterAll(removeRobustTempDirs);

describe('secrets scan: nothing written or logged holds a secret', () => {
  let upstream: CustomUpstream | undefined;
  const clis: Cli[] = [];

  afterEach(async () => {
    for (const cli of clis.splice(0)) await cli.stop();
    await upstream?.close();
    upstream = undefined;
  });

  it(
    'record (CLI -v) → replay (CLI -v) → export single file + HAR: 0 occurrences in every file and log line',
    { timeout: 60_000 },
    async () => {
      if (!existsSync(path.join(REPO, 'dist/main/cli.js')))
        throw new Error('dist/main/cli.js is missing: run `npm run build:cli` (npm test does it)');
      const root = await tempDir();
      const cassette = path.join(root, 'cassette');
      const exports = path.join(root, 'exports');
      const home = path.join(root, 'home');
      await mkdir(exports);
      await mkdir(home);
      // the children's HOME and data folders are under the scanned root too: a stray settings/log file would be found
      const env = {
        ...process.env,
        HOME: home,
        XDG_DATA_HOME: path.join(home, 'data'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
        MCP_REWIND_DATA_DIR: path.join(home, 'rewind'),
        NO_COLOR: '1',
      };

      upstream = await startCustomUpstream(() => {
        const server = new Server({ name: 'secrets', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [
            {
              name: 'lookup',
              description: 'returns an internal token',
              inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
            },
          ],
        }));
        server.setRequestHandler(CallToolRequestSchema, (request) => ({
          content: [
            {
              type: 'text',
              text: `result for ${String((request.params.arguments as { q?: string } | undefined)?.q)}: ${CUSTOM_SECRET}`,
            },
          ],
          structuredContent: { token: CUSTOM_SECRET },
        }));
        return server;
      });
      const upstreamUrl = new URL(upstream.url);
      upstreamUrl.username = URL_USER;
      upstreamUrl.password = URL_PASSWORD;
      upstreamUrl.searchParams.set('api_key', QUERY_KEY);
      const headers = {
        Authorization: `Bearer ${AUTH_TOKEN}`,
        Cookie: `sid=${COOKIE_VALUE}; theme=dark`,
        'X-Api-Key': API_KEY,
        ...CREDENTIAL_HEADERS,
      };

      // 1. record through the CLI
      const recorder = await startCli(
        ['--url', upstreamUrl.href, '--cache', cassette, '--redact', CUSTOM_PATTERN],
        env,
      );
      clis.push(recorder);
      const live = await connectClient(recorder.url, { headers });
      await live.client.listTools();
      for (const q of ['alpha', `with ${CUSTOM_SECRET} inside`])
        expect(textOf(await live.client.callTool({ name: 'lookup', arguments: { q } }))).toContain(CUSTOM_SECRET);
      await live.close();
      await recorder.stop();
      // the secrets really went through (else the scan proves nothing)
      const seen = upstream.requests.find((r) => r.method === 'POST' && r.headers['x-api-key'] !== undefined);
      expect(seen?.headers.authorization).toBe(`Bearer ${AUTH_TOKEN}`);
      expect(seen?.headers.cookie).toContain(COOKIE_VALUE);
      expect(seen?.url).toContain(QUERY_KEY);
      for (const [name, value] of Object.entries(CREDENTIAL_HEADERS))
        expect(seen?.headers[name.toLowerCase()], name).toBe(value);
      expect(
        upstream.requests.some(
          (r) => r.headers.authorization === `Basic ${Buffer.from(`${URL_USER}:${URL_PASSWORD}`).toString('base64')}`,
        ),
      ).toBe(true);

      // 2. replay through the CLI (the client sends its secrets again); a miss logs its arguments: --redact holds there too
      const replayer = await startCli(['--replay', '--cache', cassette, '--redact', CUSTOM_PATTERN], env);
      clis.push(replayer);
      const again = await connectClient(replayer.url, { headers });
      await again.client.listTools();
      const replayed = await again.client.callTool({ name: 'lookup', arguments: { q: 'alpha' } });
      expect(textOf(replayed)).toBe('result for alpha: [REDACTED]'); // the cassette holds the scrubbed answer
      await again.client
        .callTool({ name: 'lookup', arguments: { q: `never recorded ${CUSTOM_SECRET}` } })
        .catch(() => undefined);
      await until(() => /never recorded/.test(replayer.output()), 5_000, 'the miss in the verbose log');
      await again.close();
      await replayer.stop();

      // 3. exports
      await writeFile(path.join(exports, 'cassette.json'), JSON.stringify(await exportSingleFile(cassette), null, 2));
      await writeFile(path.join(exports, 'cassette.har'), JSON.stringify(await exportHar(cassette), null, 2));
      const logs = path.join(root, 'logs');
      await mkdir(logs);
      await writeFile(path.join(logs, 'record.log'), recorder.output());
      await writeFile(path.join(logs, 'replay.log'), replayer.output());

      // 4. scan every file below the root and every log line (first: the scanner finds a planted secret in each form)
      for (const [label, needle] of needles())
        expect(
          [...needles().values()].some((n) => `planted ${needle} here`.includes(n)),
          label,
        ).toBe(true);
      expect(recorder.output()).toMatch(/record\s+tools\/call lookup/); // the verbose log really logged the exchanges
      const files = await walk(root);
      expect(files.filter((f) => f.startsWith(cassette)).length).toBeGreaterThan(4);
      const found: string[] = [];
      let bytes = 0;
      for (const file of files) {
        const text = (await readFile(file)).toString('latin1');
        bytes += text.length;
        for (const [label, needle] of needles())
          if (text.includes(needle)) found.push(`${path.relative(root, file)}: ${label}`);
      }
      const lines = `${recorder.output()}\n${replayer.output()}`.split('\n');
      for (const [i, line] of lines.entries())
        for (const [label, needle] of needles())
          if (line.includes(needle)) found.push(`log line ${i + 1} "${line.slice(0, 80)}": ${label}`);
      console.log(
        `\nSecrets scan: ${files.length} files (${(bytes / 1024).toFixed(0)} kB) and ${lines.length} log lines scanned for ${needles().size} secret forms: ${found.length} occurrences${found.length ? `\n${found.join('\n')}` : ''}\n`,
      );
      expect(found).toEqual([]);
      // the redaction is visible, not silent
      expect(await readFile(path.join(exports, 'cassette.har'), 'utf8')).toContain('[REDACTED]');
    },
  );
});
