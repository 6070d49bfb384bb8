/**
 * serve: an upstream call's timeout is restarted by each progress notification (the spec allows it), with a separate
 * maximum total time; the error the agent gets says which limit was hit. A real upstream (the SDK's Server) whose tool
 * runs longer than the per-call timeout, with and without progress.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { agent, cleanup, instance, keep, textOf } from './harness.js';

afterEach(cleanup);

/** `work` runs 1.2 s; with `progress: true` it sends a progress notification every 200 ms. */
function workServer(): Server {
  const server = new Server({ name: 'worker', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'work', inputSchema: { type: 'object', properties: { progress: { type: 'boolean' } } } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    for (let i = 1; i <= 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (request.params.arguments?.progress && token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: 6 },
        });
    }
    return { content: [{ type: 'text', text: 'worked' }] };
  });
  return server;
}

async function setUp(options: { upstreamTimeoutS: number; upstreamMaxTimeS?: number }) {
  const upstream = keep(await startCustomUpstream(workServer));
  const serve = await instance(options);
  const session = await serve.api.create({ upstream: { url: upstream.url } });
  const client = await agent(session);
  return { client };
}

const call = (client: Awaited<ReturnType<typeof setUp>>['client'], progress: boolean) =>
  client.client
    .callTool({ name: 'work', arguments: { progress } }, undefined, {
      onprogress: () => {},
      resetTimeoutOnProgress: true,
      timeout: 10_000,
    })
    .then(
      (result) => ({ ok: textOf(result) }),
      (error: Error) => ({ error: error.message }),
    );

describe('serve: upstream call limits', () => {
  it('progress notifications restart the per-call timeout: a 1.2 s call with progress every 200 ms outlives a 0.5 s timeout', async () => {
    const { client } = await setUp({ upstreamTimeoutS: 0.5 });
    expect(await call(client, true)).toEqual({ ok: 'worked' });
  });

  it('without progress the per-call timeout cuts the call, and the error says so', async () => {
    const { client } = await setUp({ upstreamTimeoutS: 0.5 });
    const outcome = await call(client, false);
    expect(outcome).toMatchObject({
      error: expect.stringContaining('no answer and no progress within the per-call timeout (0.5 s)'),
    });
    expect(JSON.stringify(outcome)).not.toContain('closed the stream');
  });

  it('the maximum total time cuts a call however much progress it sends, and the error says so', async () => {
    const { client } = await setUp({ upstreamTimeoutS: 0.5, upstreamMaxTimeS: 0.7 });
    expect(await call(client, true)).toMatchObject({
      error: expect.stringContaining('exceeded the maximum total time (0.7 s)'),
    });
  });
});
