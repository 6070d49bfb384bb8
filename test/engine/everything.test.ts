import { afterEach, describe, expect, it } from 'vitest';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startEverything } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// @modelcontextprotocol/server-everything from npm: a third-party server nobody here wrote.
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
function keep<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}

async function calls(c: ConnectedClient) {
  return {
    server: c.client.getServerVersion(),
    tools: (await c.client.listTools()).tools.map((t) => t.name).sort(),
    echo: await c.client.callTool({ name: 'echo', arguments: { message: 'from a test' } }),
    sum: await c.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
    structured: await c.client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } }),
    image: await c.client.callTool({ name: 'get-tiny-image', arguments: {} }),
    resources: await c.client.listResources(),
    prompts: await c.client.listPrompts(),
  };
}

describe('server-everything as the upstream', () => {
  it('records over Streamable HTTP and replays identically with the server gone', async () => {
    const everything = keep(await startEverything('streamableHttp'));
    const cacheDir = await tempDir();
    const recording: RunningProxy = keep(await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir }));
    const rc = keep(await connectClient(recording.url));
    const live = await calls(rc);
    expect(live.sum.content).toEqual([{ type: 'text', text: 'The sum of 19 and 23 is 42.' }]);
    expect(live.structured.structuredContent).toMatchObject({ conditions: expect.any(String) });
    await rc.close();
    await recording.close();
    await everything.close();

    const replaying = keep(await startProxy({ mode: 'replay', cacheDir }));
    const replayed = await calls(keep(await connectClient(replaying.url)));
    expect(replayed).toEqual(live);
  });

  it('relays its long-running operation progress and its sampling request live', async () => {
    const everything = keep(await startEverything('streamableHttp'));
    const p = keep(await startProxy({ mode: 'proxy-only', upstreamUrl: everything.url }));
    const c = keep(await connectClient(p.url));
    const progress: Progress[] = [];
    const result = await c.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      {
        onprogress: (x) => progress.push(x),
      },
    );
    expect(progress.map((x) => x.progress)).toEqual([1, 2, 3]);
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
    const sampled = await c.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello there' } });
    expect(JSON.stringify(sampled.content)).toContain('sampled-Resource trigger-sampling-request context: hello there');
  });

  it('records and replays every client request method of the 2025-11-25 spec', async () => {
    const everything = keep(await startEverything('streamableHttp'));
    const cacheDir = await tempDir();
    const recording = keep(await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir }));
    const every = async (c: ConnectedClient) => {
      const templates = await c.client.listResourceTemplates();
      const uri = String(templates.resourceTemplates[0]?.uriTemplate ?? '').replace('{resourceId}', '1');
      return {
        ping: await c.client.ping(),
        tools: await c.client.listTools(),
        call: await c.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
        resources: await c.client.listResources(),
        templates,
        read: await c.client.readResource({ uri }),
        subscribe: await c.client.subscribeResource({ uri }),
        unsubscribe: await c.client.unsubscribeResource({ uri }),
        prompts: await c.client.listPrompts(),
        prompt: await c.client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } }),
        completion: await c.client.complete({
          ref: { type: 'ref/prompt', name: 'completable-prompt' },
          argument: { name: 'department', value: 'E' },
        }),
        setLevel: await c.client.setLoggingLevel('warning'),
      };
    };
    const rc = keep(await connectClient(recording.url));
    const live = await every(rc);
    expect(live.read.contents.length).toBeGreaterThan(0);
    expect(live.completion.completion.values.length).toBeGreaterThan(0);
    await rc.close();
    await recording.close();
    await everything.close();

    const replaying = keep(await startProxy({ mode: 'replay', cacheDir }));
    const misses: string[] = [];
    replaying.events.on('exchange', (e) => {
      if (e.cassette === 'miss') misses.push(e.method);
    });
    expect(await every(keep(await connectClient(replaying.url)))).toEqual(live);
    // ping/setLevel/subscribe have empty results and may replay from the entry or the empty default: both are right
    expect(
      misses.filter((m) => !['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'].includes(m)),
    ).toEqual([]);
  });
});
