/**
 * `mcp-rewind verify` speaks the revision each entry was recorded in (issue 21, item 18): a cassette a 2026-07-28
 * client recorded (the TypeScript SDK v2 client with version negotiation, as the Python SDK does by default) is sent
 * again as stateless 2026-07-28 requests with their `_meta`, not skipped; a cassette holding both eras goes through
 * verify's 2025 session and stateless requests side by side; the normalisers (`--match-ignore`, `--result-hash-*`,
 * `--ignore-fields`) hold for every method. Real peers: @modelcontextprotocol/server and /client 2.4, the built CLI.
 *
 * The CLI cases spawn the built command: run `npm run build:cli` first (`npm test` does).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { verifyCassette } from '../src/main/engine/verify/verify.js';
import { META } from '../src/shared/mcp-protocol.js';
import { connectV2Client } from './fixtures/v2-client.js';
import { v2Session } from './helpers/v2-session.js';
import { startV2Server, type V2ServerHandle, type V2ServerOptions } from './fixtures/v2-server.js';
import { runCli } from './helpers/hostile.js';
import { recordThrough } from './helpers/recording.js';
import { distilledFiles, removeTempDirs, tempDir } from './helpers/temp.js';

const MODERN = '2026-07-28';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
async function server(options: V2ServerOptions = {}): Promise<V2ServerHandle> {
  const s = await startV2Server(options);
  open.push(s);
  return s;
}

const session = v2Session;

const echoKey = keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'modern' } } });
const bodies = (s: V2ServerHandle, from: number) =>
  s.received.slice(from) as Array<{ method?: string; params?: { _meta?: Record<string, unknown> } }>;

describe('verify in the revision each entry was recorded in', () => {
  it('sends a 2026-07-28 cassette again as stateless requests with their _meta: nothing skipped, no drift against the same server', async () => {
    const live = await server();
    const { cacheDir, seen } = await recordThrough(live.url, (url) => session(url));
    expect(seen.era).toBe('modern');
    const files = await distilledFiles(cacheDir);
    const before = live.received.length;

    const run = await runCli(['verify', '--cache', cacheDir, '--url', live.url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${files.length} keys: ${files.length} ok, 0 drift, 0 info, 0 skipped — no drift`);
    expect(run.stdout).toMatch(new RegExp(`ok\\s+${echoKey} \\(${MODERN}\\)`));

    // what reached the server: one stateless request per key, no initialize, each with the recorded client's envelope
    const sent = bodies(live, before);
    expect(sent).toHaveLength(files.length);
    expect(sent.map((b) => b.method)).not.toContain('initialize');
    for (const body of sent) {
      expect(body.params?._meta?.[META.protocolVersion]).toBe(MODERN);
      expect(body.params?._meta?.[META.clientInfo]).toEqual({ name: 'v2-fixture-client', version: '2.0.0' });
      expect(body.params?._meta?.[META.clientCapabilities]).toEqual({ elicitation: { form: {} } });
    }
  });

  it('finds the drift of a changed release with each changed value and its JSON path (text and JUnit, exit 1)', async () => {
    const live = await server();
    const { cacheDir } = await recordThrough(live.url, (url) => session(url));
    const next = await server({ release: { resultPrefix: 'v2:', echoLang: 'optional' } });
    const junit = path.join(await tempDir(), 'verify.xml');

    const run = await runCli(['verify', '--cache', cacheDir, '--url', next.url, '--junit', junit]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes(`DRIFT  ${echoKey} (${MODERN})`));
    expect(lines[at]).toMatch(/result changed$/);
    expect(lines[at + 1].trim()).toBe('$.result.content[0].text: "echo: modern" → "v2:echo: modern"');
    const list = lines.findIndex((l) =>
      /DRIFT {2}tools_list \(2026-07-28\) {2}tools changed: echo \(inputSchema\)/.test(l),
    );
    expect(list).toBeGreaterThan(0);
    expect(lines.slice(list + 1, list + 4).map((l) => l.trim())).toContain(
      '$.result.tools[0].inputSchema.properties.lang: added {"type":"string"}',
    );
    expect(run.stdout).toContain('$.result.content[0].text: "done 2" → "v2:done 2"');
    expect(run.stdout).toContain('$.result.messages[0].content.text: "Hello, Ada!" → "v2:Hello, Ada!"');
    expect(run.stdout).toMatch(/ok\s+resources_read_\w+ \(2026-07-28\)/);

    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain(`<testcase name="${echoKey} (${MODERN})" classname="mcp-rewind.verify.tools/call" time="`);
    expect(xml).toContain(
      '<failure message="result changed: $.result.content[0].text: &quot;echo: modern&quot; → &quot;v2:echo: modern&quot;" type="drift">',
    );
  });

  it('verifies a cassette of both eras: the 2025 entries in a session, the 2026-07-28 ones stateless, each reported with its revision', async () => {
    const live = await server({ legacy: 'stateful' });
    const { cacheDir } = await recordThrough(live.url, async (url) => [
      await session(url, 'legacy'),
      await session(url, 'auto'),
    ]);
    const before = live.received.length;
    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: live.url });
    expect(report.drift).toBe(false);
    expect(report.counts.skipped).toBe(0);
    const echo = report.results.filter((r) => r.key === echoKey);
    expect(echo.map((r) => [r.revision, r.status])).toEqual([
      [undefined, 'ok'],
      [MODERN, 'ok'],
    ]);
    const sent = bodies(live, before);
    expect(sent.filter((b) => b.method === 'initialize')).toHaveLength(1); // verify's own 2025 session
    expect(sent.filter((b) => b.params?._meta?.[META.protocolVersion] === MODERN).length).toBe(
      report.results.filter((r) => r.revision).length,
    );

    const next = await server({ legacy: 'stateful', release: { resultPrefix: 'v2:' } });
    const changed = await verifyCassette({ dir: cacheDir, upstreamUrl: next.url });
    expect(changed.results.filter((r) => r.key === echoKey).map((r) => [r.revision, r.status, r.changes])).toEqual([
      [undefined, 'drift', ['$.result.content[0].text: "echo: modern" → "v2:echo: modern"']],
      [MODERN, 'drift', ['$.result.content[0].text: "echo: modern" → "v2:echo: modern"']],
    ]);
  });
});

describe.each([
  { era: '2026-07-28', negotiation: 'auto' as const, legacy: undefined },
  { era: '2025-11-25', negotiation: 'legacy' as const, legacy: 'stateful' as const },
])('normalisers for every method, $era', ({ negotiation, legacy }) => {
  it('--match-ignore lets prompts/get requests that differ only there share their recorded answers', async () => {
    const first = await server({ legacy });
    const later = await server({ legacy, release: { resultPrefix: 'v2:' } });
    const prompt = (nonce: string) => async (url: string) => {
      const c = await connectV2Client(url, { negotiation });
      await c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada', nonce } });
      await c.close();
    };
    const { cacheDir } = await recordThrough(first.url, prompt('1'));
    await recordThrough(later.url, prompt('2'), cacheDir); // the same prompt, recorded from the next release
    const staleKey = keyFor({
      method: 'prompts/get',
      params: { name: 'greet', arguments: { name: 'Ada', nonce: '2' } },
    });

    const strict = await verifyCassette({ dir: cacheDir, upstreamUrl: first.url });
    expect(strict.results.find((r) => r.key === staleKey)?.status).toBe('drift');
    const loose = await verifyCassette({ dir: cacheDir, upstreamUrl: first.url, matchIgnore: ['arguments.nonce'] });
    expect(loose.drift).toBe(false);
    expect(strict.results.find((r) => r.key === staleKey)?.changes).toEqual([
      '$.result.messages[0].content.text: "v2:Hello, Ada!" → "Hello, Ada!"',
    ]);
  });

  it('--result-hash-ignore and --ignore-fields leave a resource text and any deep field out of the comparison', async () => {
    const live = await server({ legacy });
    const { cacheDir } = await recordThrough(live.url, (url) => session(url, negotiation));
    const next = await server({ legacy, release: { resourceText: 'hello again', resultPrefix: 'v2:' } });
    const readKey = (r: { key: string }) => r.key.startsWith('resources_read_');

    const plain = await verifyCassette({ dir: cacheDir, upstreamUrl: next.url });
    expect(plain.results.find(readKey)?.status).toBe('drift');
    const hashed = await verifyCassette({
      dir: cacheDir,
      upstreamUrl: next.url,
      hashOptions: { ignore: ['contents.0.text'] },
    });
    expect(hashed.results.find(readKey)?.status).toBe('ok');
    const ignored = await verifyCassette({ dir: cacheDir, upstreamUrl: next.url, ignoreFields: ['**.text'] });
    expect(ignored.results.filter((r) => r.status === 'drift').map((r) => r.key)).toEqual([]);
    expect(plain.results.find(readKey)?.changes).toEqual([
      '$.result.contents[0].text: "hello resource" → "hello again"',
    ]);

    const cli = await runCli(['verify', '--cache', cacheDir, '--url', next.url, '--ignore-fields', '$..text']);
    expect(cli.code, cli.stdout).toBe(0);
    const bad = await runCli(['verify', '--cache', cacheDir, '--url', next.url, '--ignore-fields', 'result.[x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--ignore-fields: field pattern "result\.\[x"/);
  });
});
