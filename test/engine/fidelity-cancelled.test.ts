/**
 * A call the client cancelled (notifications/cancelled) is recorded and replayed as it went live: the server never
 * answered it, so replay never answers it either — the client's own abort ends it, not a made-up -32004 (issue 21
 * item 13). Three ways: straight at server-everything, through record, through replay with the server stopped — with
 * the SDK v1 and the SDK v2 clients.
 */
import { afterEach, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startEverything } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { outcome } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const LONG = { name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } };

type Call = (params: { name: string; arguments: Record<string, unknown> }, signal?: AbortSignal) => Promise<unknown>;

/** A connected client of either SDK: its tools/call (abortable), and its close. */
const CLIENTS: Record<string, (url: string) => Promise<{ call: Call; close(): Promise<void> }>> = {
  'SDK v1': async (url) => {
    const c = await connectClient(url);
    return { call: (params, signal) => c.client.callTool(params, undefined, { signal }), close: () => c.close() };
  },
  'SDK v2': async (url) => {
    const c = await connectV2Client(url);
    return { call: (params, signal) => c.client.callTool(params, { signal }), close: () => c.close() };
  },
};

/** Calls a tool that runs for seconds, cancels it shortly after, then makes a call that completes. */
async function cancelThenCall(url: string, client: string): Promise<unknown> {
  const c = await CLIENTS[client](url);
  try {
    const abort = new AbortController();
    const cancelled = outcome(c.call(LONG, abort.signal));
    setTimeout(() => abort.abort('changed my mind'), 300);
    const first = await cancelled;
    const after = await outcome(c.call({ name: 'echo', arguments: { message: 'still here' } }));
    return { first, after };
  } finally {
    await c.close();
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

for (const client of Object.keys(CLIENTS))
  it(`server-everything, ${client} client: a cancelled tools/call is recorded and replayed unanswered (the client sees its own abort, not -32004)`, async () => {
    const everything = await startEverything('streamableHttp');
    const cacheDir = await tempDir();
    const direct = await cancelThenCall(everything.url, client);
    const recorder = await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir });
    const seen: ExchangeEvent[] = [];
    recorder.events.on('exchange', (e: ExchangeEvent) => seen.push(e));
    const recorded = await cancelThenCall(recorder.url, client);
    // the cancelled call ends when its client closes the stream: then it is on the timeline, and recorded
    await until(() =>
      seen.some((e) => e.method === 'tools/call' && (e.request.params as { name?: string }).name === LONG.name),
    );
    await recorder.flush();
    await recorder.close();
    await everything.close();
    const replayer = await startProxy({ mode: 'replay', cacheDir });
    try {
      const replayed = await cancelThenCall(replayer.url, client);
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
