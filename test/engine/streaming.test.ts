import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import type { Mode } from '../../src/shared/modes.js';
import { connectClient, type ConnectedClient, type SamplingParams } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

async function setUp(
  mode: Mode,
  clientOptions: Parameters<typeof connectClient>[1] = {},
): Promise<{ proxy: RunningProxy; c: ConnectedClient; cacheDir: string }> {
  const server = await startSdkServer();
  open.push(server);
  const cacheDir = await tempDir();
  const proxy = await startProxy({ mode, upstreamUrl: server.url, cacheDir });
  open.push(proxy);
  const c = await connectClient(proxy.url, clientOptions);
  open.push(c);
  return { proxy, c, cacheDir };
}

describe.each(['record', 'proxy-only', 'hybrid'] as const)('live traffic in %s mode', (mode) => {
  it('relays progress and logging notifications of a tool call, in order, to the client', async () => {
    const { c } = await setUp(mode);
    const progress: Progress[] = [];
    const result = await c.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done 3' }] });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress[0]).toMatchObject({ total: 3, message: 'step 1/3' });
    const methods = c.notifications.map((n) => n.method);
    expect(methods).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
    ]);
    expect(c.notifications[3].params).toMatchObject({ level: 'info', data: 'progress finished 3 steps' });
  });

  it('routes sampling and elicitation requests to the client and its replies back to the server', async () => {
    const seen: SamplingParams[] = [];
    const { c } = await setUp(mode, {
      onSampling: (params) => {
        seen.push(params);
        return { model: 'm', role: 'assistant', content: { type: 'text', text: 'from the client' } };
      },
    });
    expect(await c.client.callTool({ name: 'sample', arguments: { prompt: 'write a haiku' } })).toEqual({
      content: [{ type: 'text', text: 'sampled: from the client' }],
    });
    expect(seen[0].messages[0].content).toEqual({ type: 'text', text: 'write a haiku' });
    expect(await c.client.callTool({ name: 'elicit', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'elicited: accept Ada' }],
    });
    // both id spaces start at 0 and interleave: a second round proves replies were not confused with requests
    expect(await c.client.callTool({ name: 'sample', arguments: { prompt: 'again' } })).toEqual({
      content: [{ type: 'text', text: 'sampled: from the client' }],
    });
  });

  it('keeps concurrent calls with progress apart', async () => {
    const { c } = await setUp(mode);
    const a: number[] = [];
    const b: number[] = [];
    const [ra, rb] = await Promise.all([
      c.client.callTool({ name: 'progress', arguments: { steps: 4 } }, undefined, {
        onprogress: (p) => a.push(p.progress),
      }),
      c.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, {
        onprogress: (p) => b.push(p.progress),
      }),
    ]);
    expect([ra.content, rb.content]).toEqual([[{ type: 'text', text: 'done 4' }], [{ type: 'text', text: 'done 2' }]]);
    expect(a).toEqual([1, 2, 3, 4]);
    expect(b).toEqual([1, 2]);
  });
});

describe('the recorded exchange', () => {
  it('keeps the streamed messages and the client reply next to the result', async () => {
    const { proxy, c, cacheDir } = await setUp('record');
    await c.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
    await c.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
    await proxy.flush();
    const files = await distilledFiles(cacheDir);
    const sample = JSON.parse(
      await readFile(join(cacheDir, files.find((f) => f.includes('tools_call_sample_')) as string), 'utf8'),
    );
    expect(sample.stream.map((m: { method?: string; result?: unknown }) => m.method ?? 'reply')).toEqual([
      'sampling/createMessage',
      'reply',
    ]);
    expect(sample.stream[1].result).toMatchObject({ content: { type: 'text', text: 'sampled-p' } });
    expect(sample.stream[1].id).toBe(sample.stream[0].id);
    const progress = JSON.parse(
      await readFile(join(cacheDir, files.find((f) => f.includes('tools_call_progress_')) as string), 'utf8'),
    );
    expect(progress.stream.map((m: { method: string }) => m.method)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
    ]);
    expect(progress.result).toEqual({ content: [{ type: 'text', text: 'done 2' }] });
  });
});

describe('replaying the whole exchange', () => {
  async function recordThenReplay(): Promise<{ replaying: RunningProxy; cacheDir: string }> {
    const { proxy, c, cacheDir } = await setUp('record');
    await c.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: () => {} });
    await c.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
    await c.client.callTool({ name: 'elicit', arguments: {} });
    await proxy.flush();
    for (const thing of open.splice(0).reverse()) await thing.close(); // the upstream is gone from here on
    const replaying = await startProxy({ mode: 'replay', cacheDir });
    open.push(replaying);
    return { replaying, cacheDir };
  }

  it('sends the recorded progress and logging notifications, in order, with the live progress token', async () => {
    const { replaying } = await recordThenReplay();
    const c = await connectClient(replaying.url);
    open.push(c);
    const progress: Progress[] = [];
    const result = await c.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done 3' }] });
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, 'step 1/3'],
      [2, 3, 'step 2/3'],
      [3, 3, 'step 3/3'],
    ]);
    expect(c.notifications.map((n) => n.method)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
    ]);
    expect(c.errors).toEqual([]); // no progress for an unknown token
  });

  it("asks the live client's sampling and elicitation handlers again, then answers as recorded", async () => {
    const { replaying } = await recordThenReplay();
    const asked: string[] = [];
    const c = await connectClient(replaying.url, {
      onSampling: (params) => {
        asked.push(`sampling: ${JSON.stringify(params.messages[0].content)}`);
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled-p' } };
      },
      onElicit: (params) => {
        asked.push(`elicit: ${params.message}`);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    open.push(c);
    expect(await c.client.callTool({ name: 'sample', arguments: { prompt: 'p' } })).toEqual({
      content: [{ type: 'text', text: 'sampled: sampled-p' }],
    });
    expect(await c.client.callTool({ name: 'elicit', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'elicited: accept Ada' }],
    });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBe('sampling: {"type":"text","text":"p"}');
  });

  it('completes an exchange whose client reply differs from the recording, and flags it', async () => {
    const { replaying } = await recordThenReplay();
    const events: Array<{ key: string; flags?: string[] }> = [];
    replaying.events.on('exchange', (e) => events.push(e));
    const c = await connectClient(replaying.url, {
      onSampling: () => ({ model: 'other', role: 'assistant', content: { type: 'text', text: 'something else' } }),
    });
    open.push(c);
    // the recorded answer comes back: the cassette is the server
    expect(await c.client.callTool({ name: 'sample', arguments: { prompt: 'p' } })).toEqual({
      content: [{ type: 'text', text: 'sampled: sampled-p' }],
    });
    const sample = events.find((e) => e.key.startsWith('tools_call_sample_'));
    expect(sample?.flags).toEqual(['client reply to sampling/createMessage differs from the recorded one']);
  });
});
