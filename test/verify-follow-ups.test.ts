/**
 * `mcp-rewind verify` and what a server sent on its GET stream after an exchange (`after_<key>` entries, issue 21
 * item 6): server-everything asks `roots/list` 350 ms after the client connects and logs how many roots it got. The
 * recording keeps that request with the client's reply; verify never sends it to the server as a request of its
 * own: its session answers the live server's roots/list with the recorded reply, and checks that the live server
 * sends after the same exchange what it sent when recorded. Nothing changed: no drift (the roots tool's answer
 * included, since the live server got the recorded roots); a changed message: a drift with its JSON path. Real peers:
 * server-everything (Streamable HTTP), SDK v1 and v2 clients declaring roots, the built CLI.
 *
 * The CLI cases spawn the built command: run `npm run build:cli` first (`npm test` does).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startEverything, type EverythingHttpHandle } from './fixtures/everything.js';
import { runCli } from './helpers/hostile.js';
import { recordThrough } from './helpers/recording.js';
import { removeTempDirs } from './helpers/temp.js';

const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const ROOTS_LOG = 'Roots updated: 1 root(s) received from client';

let everything: EverythingHttpHandle;
beforeAll(async () => {
  everything = await startEverything('streamableHttp');
});
afterAll(async () => {
  await everything.close();
});
afterEach(removeTempDirs);

/** Connects declaring roots, waits for the server's roots/list and its log, then lists the roots and echoes. */
async function rootsClient(url: string, sdk: 'v1' | 'v2'): Promise<string[]> {
  const logs: string[] = [];
  const info = { name: 'roots-client', version: '1.0.0' };
  const options = { capabilities: { roots: { listChanged: true } } };
  const client = sdk === 'v1' ? new Client(info, options) : new V2Client(info, options);
  const onLog = async (n: { params?: unknown }): Promise<void> =>
    void logs.push(String((n.params as { data?: unknown }).data));
  if (client instanceof Client) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
    client.fallbackNotificationHandler = onLog;
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  } else {
    client.setRequestHandler('roots/list', () => ({ roots: ROOTS }));
    client.fallbackNotificationHandler = onLog;
    await client.connect(new V2Transport(new URL(url)));
  }
  try {
    const deadline = Date.now() + 5000;
    while (!logs.includes(ROOTS_LOG) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await (client as Client).callTool({ name: 'get-roots-list', arguments: {} });
    await (client as Client).callTool({ name: 'echo', arguments: { message: 'after roots' } });
    return logs;
  } finally {
    await client.close();
  }
}

/** The distilled entries of a cassette whose file name has `part`, with their file names. */
async function entriesNamed(
  dir: string,
  part: string,
): Promise<Array<{ file: string; entry: Record<string, unknown> }>> {
  const files = (await readdir(dir)).filter((f) => f.includes(part) && !/\.(req|res|res-head)\.json$/.test(f));
  return Promise.all(
    files.sort().map(async (file) => ({ file, entry: JSON.parse(await readFile(join(dir, file), 'utf8')) })),
  );
}

const verify = (cacheDir: string) => runCli(['verify', '--cache', cacheDir, '--url', everything.url]);

for (const sdk of ['v1', 'v2'] as const) {
  it(`SDK ${sdk}: the GET stream's roots/list is recorded with the client's reply, answered with it by verify, and nothing drifts`, async () => {
    const { cacheDir, seen } = await recordThrough(everything.url, (url) => rootsClient(url, sdk));
    expect(seen).toContain(ROOTS_LOG);
    const after = await entriesNamed(cacheDir, 'after_initialize');
    const asked = after.find((a) => a.entry.method === 'roots/list');
    expect(asked?.entry.stream).toEqual([
      { jsonrpc: '2.0', id: expect.anything(), method: 'roots/list' },
      { jsonrpc: '2.0', id: expect.anything(), result: { roots: ROOTS } },
    ]);

    const run = await verify(cacheDir);
    expect(run.stderr).toBe('');
    // the follow-ups are checked, not sent: no "Method not found" from a roots/list verify would have sent itself
    expect(run.stdout).toMatch(/ok\s+after_initialize\n/);
    expect(run.stdout).toMatch(/ok\s+tools_call_get-roots-list_/); // the live server got the recorded roots
    expect(run.stdout).toMatch(/ 0 drift, 0 info, 0 skipped — no drift/);
    expect(run.code).toBe(0);
  }, 60_000);
}

it('a changed message on the GET stream after an exchange is a drift with its JSON path (exit 1)', async () => {
  const { cacheDir } = await recordThrough(everything.url, (url) => rootsClient(url, 'v1'));
  // the cassette as an earlier release of the server left it: it logged another text after the roots came
  const log = (await entriesNamed(cacheDir, 'after_initialize')).find(
    (a) => a.entry.method === 'notifications/message',
  );
  expect(log).toBeDefined();
  const earlier = { ...log!.entry, params: { ...(log!.entry.params as object), data: 'Roots: 1' } };
  await writeFile(join(cacheDir, log!.file), JSON.stringify(earlier, null, 2));

  const run = await verify(cacheDir);
  expect(run.code).toBe(1);
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => /DRIFT\s+after_initialize\s/.test(l));
  expect(lines[at]).toContain('what the server sent after initialize on its GET stream changed');
  expect(lines[at + 1].trim()).toBe(`notifications/message $.params.data: "Roots: 1" → "${ROOTS_LOG}"`);
  expect(run.stdout).toMatch(/ 1 drift, 0 info, 0 skipped — DRIFT/);
}, 60_000);
