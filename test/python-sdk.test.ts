/**
 * The Python MCP SDK as a peer (issue 21: "a Python SDK server recorded then verified is the scenario the issue
 * measured"): its client negotiates 2026-07-28 by default, so the cassette it records holds 2026-07-28 exchanges
 * only. The client sees the same directly, through record and through replay with the server stopped; verify sends
 * every entry again in that revision (nothing skipped) and finds the next release's drift with its JSON paths; diff
 * rates the releases' tool changes. Needs the venv `.ci/run` creates (`.venv-py`, `pip install mcp`): skipped,
 * saying why, where pip could not install it.
 *
 * The CLI cases spawn the built command: run `npm run build:cli` first (`npm test` does).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { runCli } from './helpers/hostile.js';
import {
  PYTHON_TEST_MS,
  pythonSdkMissing,
  runPythonClient,
  startPythonServer,
  type PythonServer,
} from './helpers/python-sdk.js';
import { recordThrough, replayThrough } from './helpers/recording.js';
import { distilledFiles, removeTempDirs } from './helpers/temp.js';

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK tests: ${missing}`);

const open: PythonServer[] = [];
afterEach(async () => {
  for (const server of open.splice(0).reverse()) await server.close().catch(() => {});
  await removeTempDirs();
});
async function python(...args: string[]): Promise<PythonServer> {
  const server = await startPythonServer(args);
  open.push(server);
  return server;
}

const key = (name: string, args: Record<string, unknown>) =>
  keyFor({ method: 'tools/call', params: { name, arguments: args } });

describe.skipIf(missing !== undefined)('the Python SDK, recorded and verified', () => {
  it(
    'records a 2026-07-28 session, replays it with the server stopped, verifies it: no drift, nothing skipped',
    async () => {
      const server = await python();
      const direct = await runPythonClient(server.url);
      expect(direct.protocolVersion).toBe('2026-07-28');
      const { cacheDir, seen } = await recordThrough(server.url, (url) => runPythonClient(url));
      expect(seen).toEqual(direct);

      const files = await distilledFiles(cacheDir);
      const run = await runCli(['verify', '--cache', cacheDir, '--url', server.url]);
      expect(run.stderr).toBe('');
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toContain(`${files.length} keys: ${files.length} ok, 0 drift, 0 info, 0 skipped — no drift`);

      await server.close();
      expect(await replayThrough(cacheDir, (url) => runPythonClient(url))).toEqual(direct);
    },
    PYTHON_TEST_MS,
  );

  it(
    "finds the next release's drift with each changed value's path (exit 1)",
    async () => {
      const server = await python();
      const { cacheDir } = await recordThrough(server.url, (url) => runPythonClient(url));
      const next = await python('--variant', 'v2');
      const run = await runCli(['verify', '--cache', cacheDir, '--url', next.url]);
      expect(run.code).toBe(1);
      const lines = run.stdout.split('\n');
      const echo = lines.findIndex((l) =>
        l.includes(`DRIFT  ${key('echo', { text: 'hello' })} (2026-07-28)  result changed`),
      );
      expect(lines.slice(echo + 1, echo + 3).map((l) => l.trim())).toEqual([
        '$.result.content[0].text: "hello" → "v2:hello"',
        '$.result.structuredContent.result: "hello" → "v2:hello"',
      ]);
      expect(run.stdout).toMatch(
        /DRIFT {2}tools_list \(2026-07-28\) {2}tools removed: shout; changed: echo \(inputSchema\), add \(inputSchema\)/,
      );
      expect(run.stdout).toMatch(
        new RegExp(
          `DRIFT {2}${key('add', { a: 2, b: 40 })} \\(2026-07-28\\) {2}result changed \\(now an error result\\)`,
        ),
      );
      expect(run.stdout).toMatch(
        /info {3}server_discover_\w+ \(2026-07-28\) {2}serverInfo py-fixture 1\.0\.0 → py-fixture 2\.0\.0/,
      );
      expect(run.stdout).toMatch(/ok {5}resources_read_\w+ \(2026-07-28\)/);
    },
    PYTHON_TEST_MS,
  );

  it(
    'diff of the two releases: a removed tool and a new required field are breaking, a new optional field compatible',
    async () => {
      const first = await python();
      const { cacheDir: a } = await recordThrough(first.url, (url) => runPythonClient(url));
      const second = await python('--variant', 'v2');
      const { cacheDir: b } = await recordThrough(second.url, (url) => runPythonClient(url));
      const run = await runCli(['diff', a, b]);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(/^ {2}BREAKING {4}shout: removed$/m);
      expect(run.stdout).toMatch(/^ {2}BREAKING {4}add: inputSchema\.properties\.c: new required field$/m);
      expect(run.stdout).toMatch(/^ {2}compatible {2}echo: inputSchema\.properties\.lang: new optional field$/m);
    },
    PYTHON_TEST_MS,
  );
});
