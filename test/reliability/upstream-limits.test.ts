/**
 * The CLI's upstream limits (`--upstream-timeout`, restarted by each progress notification, and
 * `--upstream-max-time`): an upstream that never answers, sends garbage SSE and stays open, or drips one byte per
 * 2 s no longer holds the client. The built CLI runs as a real process in front of a real HTTP server that misbehaves
 * in time (test/helpers/raw-upstream.ts); a real SDK client calls through it. The client's own timeout is far
 * longer (30 s) than the proxy's, so what it gets is the proxy's doing.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../../src/shared/jsonrpc.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { REPO, textOf } from '../engine/robustness-helpers.js';
import { keeper } from '../helpers/keep.js';
import { startCli } from '../helpers/procfs.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

/** A call's outcome: its text, or its JSON-RPC error code and message (never the client's own timeout). */
async function outcome(
  client: ConnectedClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text?: string; code?: number; message?: string }> {
  try {
    const result = await client.client.callTool({ name, arguments: args }, undefined, {
      timeout: 30_000,
      onprogress: () => {},
      resetTimeoutOnProgress: true,
    });
    return { text: textOf(result) };
  } catch (error) {
    return { code: error instanceof McpError ? error.code : undefined, message: (error as Error).message };
  }
}

const perCall = (seconds: number) => ({
  code: ErrorCode.UpstreamUnavailable,
  message: expect.stringContaining(`no progress within the per-call timeout (${seconds} s)`),
});

describe('CLI: --upstream-timeout and --upstream-max-time', () => {
  it('record: a silent, a garbage and a dripping upstream are cut at 2 s with -32005 naming the limit, and nothing of them is recorded', async () => {
    const upstream = keep(await startRawUpstream());
    const dir = await tempDir();
    const cli = keep(
      await startCli(['--url', upstream.url, '--cache', dir, '--upstream-timeout', '2', '--upstream-max-time', '7']),
    );
    const client = keep(await connectClient(cli.url));
    const [hang, garbage, drip, dripJson, progress, endless] = await Promise.all([
      outcome(client, 'hang'),
      outcome(client, 'garbage'),
      outcome(client, 'drip'),
      outcome(client, 'drip_json'),
      outcome(client, 'progress', { seconds: 5 }), // a progress every second: each restarts the 2 s timeout
      outcome(client, 'progress', { seconds: 30 }), // progress all along: cut by the maximum total time
    ]);
    expect({ hang, garbage, drip, dripJson }).toEqual({
      hang: perCall(2),
      garbage: perCall(2),
      drip: perCall(2),
      dripJson: perCall(2),
    });
    expect(progress).toEqual({ text: 'done' });
    expect(endless).toEqual({
      code: ErrorCode.UpstreamUnavailable,
      message: expect.stringContaining('exceeded the maximum total time (7 s)'),
    });
    expect(await outcome(client, 'ok')).toEqual({ text: 'ok' }); // the proxy serves on
    await client.close();
    cli.child.kill('SIGTERM'); // pending writes are finished first
    await cli.exited;
    const recorded = (await distilledFiles(dir))
      .filter((name) => name.includes('tools_call_'))
      .map((name) => name.replace(/^\d+ tools_call_(\w+?)_[0-9a-f]+\.json$/, '$1'));
    expect(recorded.sort()).toEqual(['ok', 'progress']); // the 5 s call only: nothing that was cut
  });

  it('proxy-only (answers piped unparsed): the limits hold, and progress read from the bytes restarts the timeout', async () => {
    const upstream = keep(await startRawUpstream());
    const cli = keep(await startCli(['--proxy-only', '--url', upstream.url, '--upstream-timeout', '2']));
    const client = keep(await connectClient(cli.url));
    const [hang, garbage, drip, progress, dripJson] = await Promise.all([
      outcome(client, 'hang'),
      outcome(client, 'garbage'),
      outcome(client, 'drip'),
      outcome(client, 'progress', { seconds: 5 }),
      outcome(client, 'drip_json'),
    ]);
    expect({ hang, garbage, drip }).toEqual({ hang: perCall(2), garbage: perCall(2), drip: perCall(2) });
    expect(progress).toEqual({ text: 'done' });
    // part of a JSON body went out before the limit: the connection is closed, the client is not held
    expect(dripJson.text).toBeUndefined();
    expect(dripJson.code).not.toBe(-32001); // not the client's own request timeout
  });

  it('a 2026-07-28 subscriptions/listen stream is no call to time out: a change sent after the timeout still arrives', async () => {
    const server = keep(await startV2Server());
    const cli = keep(
      await startCli([
        '--url',
        server.url,
        '--cache',
        await tempDir(),
        '--upstream-timeout',
        '1',
        '--upstream-max-time',
        '2',
      ]),
    );
    const c = keep(await connectV2Client(cli.url, { negotiation: 'auto' }));
    const updated: unknown[] = [];
    c.client.setNotificationHandler('notifications/resources/updated', async (n) => void updated.push(n.params));
    const sub = await c.client.listen({ resourceSubscriptions: ['fixture://hello'] });
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // past both limits
    server.notify.resourceUpdated('fixture://hello');
    await expect.poll(() => updated.length, { timeout: 10_000 }).toBe(1);
    await sub.close();
  });

  it('--help gives both flags with their defaults (60 s, 600 s); a bad value is a usage error', () => {
    const help = execFileSync(process.execPath, [path.join(REPO, 'bin/mcp-rewind.js'), '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/--upstream-timeout <seconds>[^]*?default\s+60\b[^]*?\(default:\s+"60"\)/);
    expect(help).toMatch(/--upstream-max-time <seconds>[^]*?\(default:\s+"600"\)/);
    const bad = (() => {
      try {
        execFileSync(
          process.execPath,
          [path.join(REPO, 'bin/mcp-rewind.js'), '--url', 'http://127.0.0.1:1/mcp', '--upstream-timeout', 'soon'],
          {
            encoding: 'utf8',
            stdio: 'pipe',
          },
        );
        return { status: 0, stderr: '' };
      } catch (error) {
        const e = error as { status: number; stderr: string };
        return { status: e.status, stderr: e.stderr };
      }
    })();
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--upstream-timeout must be a number between 0 and 86400, got "soon"');
  });
});
