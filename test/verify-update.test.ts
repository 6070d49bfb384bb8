/**
 * `mcp-rewind verify --update` (issue 21, item 19): the drifted entries re-recorded in place from what the live
 * server answers now — exactly those files rewritten (atomically, same names), the further results of a drifted key
 * removed, every replaced file kept in a backup folder beside the cassette — so that verify finds no drift any more
 * and a replay with the server stopped gives what the server gives directly, streamed progress included. A 2026-07-28
 * cassette and a 2025 one, from real servers (SDK v2 fixture, SDK v1 fixture), the built CLI.
 *
 * The CLI cases spawn the built command: run `npm run build:cli` first (`npm test` does).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { verifyCassette } from '../src/main/engine/verify/verify.js';
import { connectClient } from './fixtures/client.js';
import { startSdkServer } from './fixtures/sdk-server.js';
import { startV2Server, type V2ServerOptions } from './fixtures/v2-server.js';
import { runCli } from './helpers/hostile.js';
import { folderFiles, recordThrough, replayThrough } from './helpers/recording.js';
import { v2Session } from './helpers/v2-session.js';
import { removeTempDirs } from './helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
async function v2(options: V2ServerOptions = {}) {
  const s = await startV2Server(options);
  open.push(s);
  return s;
}

/** The files `after` holds differently from `before` (changed or gone), and those it gained. */
function changedFiles(
  before: Map<string, string>,
  after: Map<string, string>,
): { changed: string[]; gone: string[]; added: string[] } {
  return {
    changed: [...before].filter(([name, text]) => after.has(name) && after.get(name) !== text).map(([name]) => name),
    gone: [...before.keys()].filter((name) => !after.has(name)),
    added: [...after.keys()].filter((name) => !before.has(name)),
  };
}

const stem = (file: string): string => file.replace(/\.json$/, '');
const drifted = (stdout: string): string[] => [...stdout.matchAll(/DRIFT {2}(\S+)/g)].map((m) => m[1]);

describe.each([
  { era: '2026-07-28', negotiation: 'auto' as const, legacy: undefined },
  { era: '2025-11-25', negotiation: 'legacy' as const, legacy: 'stateful' as const },
])('verify --update on a $era cassette', ({ negotiation, legacy }) => {
  it('re-records exactly the drifted entries, keeps the old files in a backup folder, and replays what the server gives now', async () => {
    const first = await v2({ legacy });
    const { cacheDir } = await recordThrough(first.url, (url) => v2Session(url, negotiation));
    const before = await folderFiles(cacheDir);
    const next = await v2({ legacy, release: { resultPrefix: 'v2:' } });
    const direct = await v2Session(next.url, negotiation);
    expect(direct.progressSeen).toEqual([1, 2]);

    const run = await runCli(['verify', '--cache', cacheDir, '--url', next.url, '--update']);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0); // every drift re-recorded: the cassette agrees with the server again
    const keys = drifted(run.stdout);
    expect(keys.sort()).toEqual(
      [
        keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'modern' } } }),
        keyFor({ method: 'tools/call', params: { name: 'progress', arguments: { steps: 2 } } }),
        keyFor({ method: 'prompts/get', params: { name: 'greet', arguments: { name: 'Ada' } } }),
      ].sort(),
    );
    const backup = /the old files are in (.+)$/m.exec(run.stdout)?.[1] as string;
    expect(path.dirname(backup)).toBe(path.dirname(cacheDir));
    expect(path.basename(backup)).toMatch(new RegExp(`^${path.basename(cacheDir)}\\.backup-\\d{4}-\\d\\d-\\d\\dT`));

    // only the drifted entries changed: their distilled files rewritten, their stale response debug files gone
    const after = await folderFiles(cacheDir);
    const diff = changedFiles(before, after);
    const entries = [...before.keys()].filter((f) => keys.some((k) => f.endsWith(` ${k}.json`)));
    expect(entries).toHaveLength(3);
    expect(diff.changed.sort()).toEqual(entries.sort());
    expect(diff.gone.sort()).toEqual(
      entries.flatMap((f) => [`${stem(f)}.res-head.json`, `${stem(f)}.res.json`]).sort(),
    );
    expect(diff.added).toEqual([]);
    // the backup holds every replaced file as it was
    const saved = await folderFiles(backup);
    expect([...saved.keys()].sort()).toEqual(
      entries.flatMap((f) => [f, `${stem(f)}.req.json`, `${stem(f)}.res-head.json`, `${stem(f)}.res.json`]).sort(),
    );
    for (const [name, text] of saved) expect(text).toBe(before.get(name));

    const again = await runCli(['verify', '--cache', cacheDir, '--url', next.url]);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/0 drift/);

    await next.close();
    await first.close();
    expect(await replayThrough(cacheDir, (url) => v2Session(url, negotiation))).toEqual(direct);
  });
});

describe('verify --update, more', () => {
  it('re-records a key recorded with two results as one entry (the other goes to the backup); a single file is refused', async () => {
    const server = await startSdkServer();
    open.push(server);
    const echo = (url: string) => async () => {
      const c = await connectClient(url);
      const text = (await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } })).content;
      await c.close();
      return text;
    };
    const { cacheDir } = await recordThrough(server.url, async (url) => {
      const one = await echo(url)();
      server.setEchoPrefix('b: ');
      return [one, await echo(url)()];
    });
    const key = keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
    const before = [...(await folderFiles(cacheDir)).keys()].filter((f) => f.endsWith(` ${key}.json`));
    expect(before).toHaveLength(2);

    server.setEchoPrefix('c: ');
    const report = await verifyCassette({ dir: cacheDir, upstreamUrl: server.url, update: true });
    expect(report.results.find((r) => r.key === key)).toMatchObject({
      status: 'drift',
      changes: ['$.result.content[0].text: "b: hello" → "c: hello"'],
    });
    expect(report.updated?.rewritten).toEqual([before[0]]);
    expect(report.updated?.removed).toEqual([before[1]]);
    const after = await folderFiles(cacheDir);
    expect([...after.keys()].filter((f) => f.endsWith(` ${key}.json`))).toEqual([before[0]]);
    expect(JSON.parse(after.get(before[0]) as string).result.content).toEqual([{ type: 'text', text: 'c: hello' }]);
    expect([...(await folderFiles(report.updated?.backup as string)).keys()]).toEqual(expect.arrayContaining(before));
    expect((await verifyCassette({ dir: cacheDir, upstreamUrl: server.url })).drift).toBe(false);

    const file = path.join(cacheDir, before[0]);
    const refused = await runCli(['verify', '--cache', file, '--url', server.url, '--update']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--update needs a cassette folder/);
  });
});
