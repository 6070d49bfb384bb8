/**
 * Issue 21 item 8: a recorded call with 4 progress notifications, replayed with `--replay-timing none` to a real v1
 * SDK client over `--stdio`. The v1 client handles a notification a microtask after reading it, but an answer at
 * once — and the answer removes the call's progress handler — so progress that reaches it in the same read as the
 * answer is dropped (it used to get 1 of 4 in most runs). The `--stdio` downstream now lets the client read what
 * came before an answer first. Ten runs, each a fresh CLI process: all 4 progress notifications, in order, each time.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startProxy } from '../src/main/engine/proxy.js';
import { connectClient } from './fixtures/client.js';
import { startCustomUpstream } from './helpers/custom-upstream.js';
import { BIN, REPO } from './helpers/hostile.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';
import { threeWays } from './helpers/three-ways.js';

afterAll(removeTempDirs);

const STEPS = 4;
const RUNS = 10;

/** A tool that reports STEPS progress notifications, back to back, before its answer. */
function progressServer(): Server {
  const server = new Server({ name: 'progress', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'steps', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    for (let i = 1; i <= STEPS; i++)
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: STEPS, message: `step ${i}` },
        });
    return { content: [{ type: 'text', text: 'all steps done' }] };
  });
  return server;
}

/** Records one call (the client asks for progress), then stops the server. */
async function recordCall(): Promise<string> {
  const upstream = await startCustomUpstream(progressServer);
  const cacheDir = await tempDir();
  const recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
  const c = await connectClient(recorder.url);
  const seen: number[] = [];
  await c.client.callTool({ name: 'steps', arguments: {} }, undefined, {
    onprogress: (p) => void seen.push(p.progress),
  });
  expect(seen).toEqual([1, 2, 3, 4]); // what the live client saw: the replayed one must see the same
  await c.close();
  await recorder.flush();
  await recorder.close();
  await upstream.close();
  return cacheDir;
}

/** One run: a fresh `--stdio --replay` CLI process and a v1 SDK client calling the tool once. */
async function replayOnce(cacheDir: string): Promise<{ progress: string[]; text: unknown }> {
  const client = new Client({ name: 'stdio-progress', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--stdio', '--replay', '--cache', cacheDir, '--replay-timing', 'none'],
    cwd: REPO,
    stderr: 'ignore',
  });
  await client.connect(transport);
  try {
    const progress: string[] = [];
    const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(`${p.progress}/${p.total} ${p.message}`),
    });
    return { progress, text: (result.content as Array<{ text: string }>)[0]?.text };
  } finally {
    await client.close();
  }
}

/** One run over HTTP: a v1 SDK client of a replaying proxy (or of the server, or a recording proxy), over Streamable HTTP or legacy SSE. */
async function replayOverHttp(
  url: string,
  transport: 'sse' | undefined,
): Promise<{ progress: string[]; text: unknown }> {
  const c = await connectClient(transport ? url.replace(/\/mcp$/, '/sse') : url, transport ? { transport } : {});
  try {
    const progress: string[] = [];
    const result = await c.client.callTool({ name: 'steps', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(`${p.progress}/${p.total} ${p.message}`),
    });
    return { progress, text: (result.content as Array<{ text: string }>)[0]?.text };
  } finally {
    await c.close();
  }
}

describe('progress replayed to a --stdio client with --replay-timing none (issue 21 item 8)', () => {
  it(`the client sees the same ${STEPS} progress and answer direct, through record and through replay (server stopped)`, async () => {
    const { direct, recorded, replayed } = await threeWays(
      () => startCustomUpstream(progressServer),
      (url) => replayOverHttp(url, undefined),
      { replayTiming: 'none' },
    );
    const expected = Array.from({ length: STEPS }, (_, i) => `${i + 1}/${STEPS} step ${i + 1}`);
    expect(direct).toEqual({ progress: expected, text: 'all steps done' });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  }, 60_000);

  it(`a v1 SDK client gets all ${STEPS} progress notifications, in order, before its answer, ${RUNS} runs of ${RUNS}`, async () => {
    const cacheDir = await recordCall();
    const expected = Array.from({ length: STEPS }, (_, i) => `${i + 1}/${STEPS} step ${i + 1}`);
    const runs: Array<{ progress: string[]; text: unknown }> = [];
    for (let run = 0; run < RUNS; run++) runs.push(await replayOnce(cacheDir));
    expect(runs).toEqual(Array.from({ length: RUNS }, () => ({ progress: expected, text: 'all steps done' })));
  }, 120_000);

  it(`and over Streamable HTTP and legacy SSE: all ${STEPS}, in order, ${RUNS} runs of ${RUNS} each`, async () => {
    const cacheDir = await recordCall();
    const proxy = await startProxy({ mode: 'replay', cacheDir, replayTiming: 'none' });
    try {
      const expected = Array.from({ length: STEPS }, (_, i) => `${i + 1}/${STEPS} step ${i + 1}`);
      for (const transport of [undefined, 'sse'] as const) {
        const runs: Array<{ over: string; progress: string[]; text: unknown }> = [];
        const over = transport ?? 'streamable-http';
        for (let run = 0; run < RUNS; run++) runs.push({ over, ...(await replayOverHttp(proxy.url, transport)) });
        expect(runs).toEqual(
          Array.from({ length: RUNS }, () => ({ over, progress: expected, text: 'all steps done' })),
        );
      }
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
