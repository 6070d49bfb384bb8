/**
 * A call the client cancelled (notifications/cancelled) is recorded and replayed as it went live: the server never
 * answered it, so replay never answers it either — the client's own abort ends it, not a made-up -32004 (issue 21
 * item 13). Three ways: straight at server-everything, through record, through replay with the server stopped.
 */
import { afterEach, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startEverything } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { outcome } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const LONG = { name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } };

/** Calls a tool that runs for seconds, cancels it shortly after, then makes a call that completes. */
async function cancelThenCall(url: string): Promise<unknown> {
  const c = await connectClient(url);
  try {
    const abort = new AbortController();
    const cancelled = outcome(c.client.callTool(LONG, undefined, { signal: abort.signal }));
    setTimeout(() => abort.abort('changed my mind'), 300);
    const first = await cancelled;
    const after = await outcome(c.client.callTool({ name: 'echo', arguments: { message: 'still here' } }));
    return { first, after };
  } finally {
    await c.close();
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('server-everything: a cancelled tools/call is recorded and replayed unanswered (the client sees its own abort, not -32004)', async () => {
  const everything = await startEverything('streamableHttp');
  const cacheDir = await tempDir();
  const direct = await cancelThenCall(everything.url);
  const recorder = await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir });
  const seen: ExchangeEvent[] = [];
  recorder.events.on('exchange', (e: ExchangeEvent) => seen.push(e));
  const recorded = await cancelThenCall(recorder.url);
  // the cancelled call ends when its client closes the stream: then it is on the timeline, and recorded
  await until(() =>
    seen.some((e) => e.method === 'tools/call' && (e.request.params as { name?: string }).name === LONG.name),
  );
  await recorder.flush();
  await recorder.close();
  await everything.close();
  const replayer = await startProxy({ mode: 'replay', cacheDir });
  try {
    const replayed = await cancelThenCall(replayer.url);
    expect(direct).toMatchObject({
      first: { error: { message: expect.stringMatching(/changed my mind/) } },
      after: { ok: { content: [{ text: expect.stringContaining('still here') }] } },
    });
    expect(recorded).toEqual(direct);
    expect(replayed).toEqual(direct);
  } finally {
    await replayer.close();
  }
}, 60_000);
