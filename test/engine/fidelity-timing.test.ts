/**
 * --replay-timing: replay reproduces the recorded latency of an answer and the spacing of its streamed messages
 * (`recorded`, or at a speed `x<n>`), or answers at once (`none`, the default) — so a client's timeout and progress
 * handling can be tested in replay. Asserted through what a real SDK client does (times out, or not; a timeout reset
 * by progress), and with lower bounds only: a delay replay promises is never shorter than asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { keeper } from '../helpers/keep.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { outcome } from '../helpers/three-ways.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const SLOW_MS = 600;
const STEPS = 4;

/** A tool that takes SLOW_MS, with a progress notification every SLOW_MS / STEPS. */
function slowServer(): Server {
  const server = new Server({ name: 'slow', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'slow', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    for (let i = 1; i <= STEPS; i++) {
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS / STEPS));
      if (token !== undefined && i < STEPS)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: STEPS },
        });
    }
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  return server;
}

/** Records one slow call (a patient client), then stops the server: the cassette to replay. */
async function recordSlowCall(): Promise<string> {
  const upstream = await startCustomUpstream(slowServer);
  const cacheDir = await tempDir();
  const recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
  const c = await connectClient(recorder.url);
  await c.client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: () => {} });
  await c.close();
  await recorder.flush();
  await recorder.close();
  await upstream.close();
  return cacheDir;
}

async function replaying(
  cacheDir: string,
  replayTiming?: string,
): Promise<{ proxy: RunningProxy; client: ConnectedClient }> {
  const proxy = keep(await startProxy({ mode: 'replay', cacheDir, replayTiming }));
  const client = keep(await connectClient(proxy.url));
  return { proxy, client };
}

describe('--replay-timing', () => {
  it('none (default): the answer comes at once, so a client with a short timeout gets it', async () => {
    const cacheDir = await recordSlowCall();
    const { client } = await replaying(cacheDir);
    expect(
      await outcome(client.client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: SLOW_MS / 2 })),
    ).toEqual({
      ok: { content: [{ type: 'text', text: 'slow done' }] },
    });
  });

  it('recorded: the recorded latency comes back — a client timing out live times out in replay too; a patient one waits as long', async () => {
    const cacheDir = await recordSlowCall();
    const { client } = await replaying(cacheDir, 'recorded');
    const short = await outcome(
      client.client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: SLOW_MS / 2 }),
    );
    expect(short).toMatchObject({ error: { code: -32001 } }); // the SDK's RequestTimeout, as against the live server
    const started = performance.now();
    const patient = await outcome(
      client.client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: () => {} }),
    );
    expect(patient).toEqual({ ok: { content: [{ type: 'text', text: 'slow done' }] } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS * 0.9);
  });

  it('recorded: the progress notifications keep their spacing, so a timeout reset by progress holds as it did live', async () => {
    const cacheDir = await recordSlowCall();
    const { client } = await replaying(cacheDir, 'recorded');
    const times: number[] = [];
    const started = performance.now();
    const result = await outcome(
      client.client.callTool({ name: 'slow', arguments: {} }, undefined, {
        timeout: (SLOW_MS / STEPS) * 2.5,
        resetTimeoutOnProgress: true,
        onprogress: () => void times.push(performance.now() - started),
      }),
    );
    expect(result).toEqual({ ok: { content: [{ type: 'text', text: 'slow done' }] } });
    expect(times).toHaveLength(STEPS - 1);
    expect(times[times.length - 1]).toBeGreaterThanOrEqual((SLOW_MS / STEPS) * (STEPS - 1) * 0.9); // spread out, not sent at once
  });

  it('x<speed>: x4 plays four times as fast (the short timeout now holds), x0.5 half as fast', async () => {
    const cacheDir = await recordSlowCall();
    const fast = await replaying(cacheDir, 'x4');
    expect(
      await outcome(fast.client.client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: SLOW_MS / 2 })),
    ).toMatchObject({ ok: {} });
    const slow = await replaying(cacheDir, 'x0.5');
    const started = performance.now();
    await slow.client.client.callTool({ name: 'slow', arguments: {} });
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS * 2 * 0.9);
  });

  it('is refused with a clear message when it is not a timing', async () => {
    const cacheDir = await tempDir();
    await expect(startProxy({ mode: 'replay', cacheDir, replayTiming: 'slowly' })).rejects.toThrow(
      /replay timing must be none, recorded, or x<speed>/,
    );
  });
});

describe('the flags', () => {
  const parse = async (args: string[]) => {
    const { toProxyOptions } = await import('../../src/main/cli/options.js');
    const { buildProgram } = await import('../../src/main/cli/program.js');
    const program = buildProgram('0').exitOverride();
    program.parse(['node', 'mcp-rewind', ...args]);
    return toProxyOptions(program.opts());
  };

  it('--replay-timing takes none, recorded or x<speed>, in replay (and hybrid) only', async () => {
    expect((await parse(['--replay', '--replay-timing', 'recorded'])).replayTiming).toBe('recorded');
    expect((await parse(['--replay', '--replay-timing', 'x2.5'])).replayTiming).toBe('x2.5');
    await expect(parse(['--replay', '--replay-timing', 'fast'])).rejects.toThrow(
      /--replay-timing must be none, recorded, or x<speed>/,
    );
    await expect(parse(['--replay', '--replay-timing', 'x0'])).rejects.toThrow(/--replay-timing must be/);
    await expect(parse(['--url', 'http://127.0.0.1:1/mcp', '--replay-timing', 'recorded'])).rejects.toThrow(
      /applies to replay/,
    );
  });

  it('serve: --upstream-max-time and MIMCP_UPSTREAM_MAX_TIME_S set the maximum total time of a call', async () => {
    const { buildServeProgram, toServeOptions } = await import('../../src/main/cli/serve-command.js');
    const fromFlag = buildServeProgram({}).exitOverride();
    fromFlag.parse(['node', 'serve', '--upstream-max-time', '120']);
    expect(toServeOptions(fromFlag.opts(), {}).upstreamMaxTimeS).toBe(120);
    const fromEnv = buildServeProgram({ MIMCP_UPSTREAM_MAX_TIME_S: '90' }).exitOverride();
    fromEnv.parse(['node', 'serve']);
    expect(toServeOptions(fromEnv.opts(), {}).upstreamMaxTimeS).toBe(90);
    const byDefault = buildServeProgram({}).exitOverride();
    byDefault.parse(['node', 'serve']);
    expect(toServeOptions(byDefault.opts(), {}).upstreamMaxTimeS).toBe(600);
  });
});
