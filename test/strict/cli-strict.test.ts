/**
 * Issue 21 items 16 and 17 through the built CLI as a real process (`npm run build:cli` first): replay refuses a
 * missing cassette (one line, exit 2, nothing created; `serve` answers 400), `--record-missing` creates and records
 * one, `--strict` answers a miss with the closest recorded key and the difference, and exits 1 with a miss summary;
 * without `--strict` a miss is logged without `-v`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectClient } from '../fixtures/client.js';
import { startEverything, type EverythingHttpHandle } from '../fixtures/everything.js';
import { killCliProcesses, startCliProcess } from '../helpers/cli-process.js';
import { REPO, runCli } from '../helpers/hostile.js';
import { copyOf, distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const FIXTURE = join(REPO, 'test/fixtures/mcp-rewind-cache');

afterEach(killCliProcesses);
afterAll(removeTempDirs);

describe('a missing cassette', () => {
  it('replay refuses to start: one line, exit 2, and no folder is made', async () => {
    const missing = join(await tempDir(), 'nope');
    const run = await runCli(['--replay', '--cache', missing]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`cassette ${missing} does not exist`);
    expect(run.stderr).toContain('--record-missing');
    expect(run.stdout).toBe('');
    expect(existsSync(missing)).toBe(false);
  });

  it('--strict, --record-missing: combinations that cannot work are usage errors (exit 2)', async () => {
    const dir = await tempDir();
    const noUpstream = await runCli(['--record-missing', '--cache', dir]);
    expect(noUpstream.code).toBe(2);
    expect(noUpstream.stderr).toContain('--record-missing needs --url or --upstream-command');
    const strictLive = await runCli(['--strict', '--url', 'http://127.0.0.1:9/mcp', '--cache', dir]);
    expect(strictLive.code).toBe(2);
    expect(strictLive.stderr).toContain('--strict applies to replay');
  });

  describe('with a server', () => {
    let everything: EverythingHttpHandle;
    afterAll(async () => everything?.close());

    it('--record-missing creates the cassette and records what it misses, then replays it', async () => {
      everything = await startEverything('streamableHttp');
      const cache = join(await tempDir(), 'made');
      const hybrid = await startCliProcess(['--record-missing', '--url', everything.url, '--cache', cache]);
      expect(hybrid.stdout()).toContain('hybrid mode');
      const c = await connectClient(hybrid.url);
      const live = await c.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      await c.close();
      expect((await hybrid.stop()).code).toBe(0);
      expect((await distilledFiles(cache)).some((f) => f.includes('tools_call_get-sum_'))).toBe(true);
      const replay = await startCliProcess(['--replay', '--cache', cache]);
      const r = await connectClient(replay.url);
      expect(await r.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })).toEqual(live);
      await r.close();
      await replay.stop();
    });
  });
});

describe('--strict', () => {
  it('a miss is a -32004 naming the key, the closest recorded key and the difference; the summary at exit; exit 1', async () => {
    const cache = await copyOf(FIXTURE);
    const proxy = await startCliProcess(['--replay', '--strict', '--cache', cache]);
    const c = await connectClient(proxy.url);
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toMatchObject({
      content: [{ text: 'hello from mcp-rewind' }],
    });
    const refused = await c.client.callTool({ name: 'echo', arguments: { text: 'Hello' } }).then(
      () => undefined,
      (error: Error & { code?: number }) => error,
    );
    expect(refused?.code).toBe(-32004);
    expect(refused?.message).toContain('closest recorded tools_call_echo_cbbbdcd27692344d');
    expect(refused?.message).toContain('arguments.text: "hello" recorded, "Hello" asked');
    expect(refused?.message).toMatch(/key tools_call_echo_[0-9a-f]{16}\)/);
    // a list the cassette does not hold is a miss too in strict mode (not an empty list)
    const prompts = await c.client.listPrompts().then(
      () => 'answered',
      (error: Error & { code?: number }) => error.code,
    );
    expect(prompts).toBe(-32004);
    await c.close();
    const stopped = await proxy.stop();
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('--strict: 2 replay misses:');
    expect(stopped.stderr).toMatch(
      / {2}1\. tools\/call "echo" with arguments \{"text":"Hello"\}.*arguments\.text: "hello" recorded, "Hello" asked/,
    );
    expect(stopped.stderr).toMatch(/ {2}2\. prompts\/list/);
  });

  it('a strict replay that missed nothing exits 0 with no summary', async () => {
    const proxy = await startCliProcess(['--replay', '--strict', '--cache', await copyOf(FIXTURE)]);
    const c = await connectClient(proxy.url);
    await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    await c.close();
    const stopped = await proxy.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).not.toContain('replay miss');
  });

  it('without --strict a miss is logged without -v (and answered as before); exit 0', async () => {
    const proxy = await startCliProcess(['--replay', '--cache', await copyOf(FIXTURE)]);
    const c = await connectClient(proxy.url);
    const refused = await c.client.callTool({ name: 'add', arguments: { a: 1, b: 3 } }).catch((error: Error) => error);
    expect(String(refused)).toContain('no recorded answer for tools/call "add"');
    expect(await c.client.listPrompts()).toEqual({ prompts: [] });
    await c.close();
    const stopped = await proxy.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(
      /replay miss: tools\/call "add" with arguments \{"a":1,"b":3\} .*closest recorded tools_call_add_206f7b5543e6f2ef \(its entry does not keep what it was asked\)/,
    );
    expect(stopped.stderr).toContain('replay miss: prompts/list');
  });
});
