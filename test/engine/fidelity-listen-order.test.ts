/**
 * A `subscriptions/listen` stream's notifications keep their place among the calls around them in replay with
 * `--replay-timing none` (issue 21 item 7): live, the client opens a listen stream, calls `echo`, and the tool list
 * changes after that call answered; replayed with the server stopped, `tools/list_changed` used to arrive right after
 * the acknowledgement, before the client had even called. Raw 2026-07-28 HTTP, read as it arrives; direct, through
 * record, through replay.
 */
import { afterEach, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { CassetteStore } from '../../src/main/engine/cassette/store.js';
import { awaitedCalls } from '../../src/main/engine/pipeline/core/call-order.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { replayThrough } from '../helpers/recording.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { MODERN, MODERN_HEADERS, modernMeta, openListen } from '../helpers/listen-stream.js';

afterEach(removeTempDirs);

const META = modernMeta('order-client');

/** Opens a listen stream and logs each message's method into `seen` as it arrives. */
async function listen(url: string, seen: string[]): Promise<() => void> {
  const stream = await openListen(url, META);
  void (async () => {
    for (;;) {
      const message = (await stream.next().catch(() => undefined)) as { method?: string } | undefined;
      if (!message) return;
      seen.push(`stream ${message.method}`);
    }
  })();
  return () => stream.close();
}

async function echo(url: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { _meta: META, name: 'echo', arguments: { text: 'order' } },
    }),
  });
  return res.status;
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

/**
 * The client's view, in arrival order: the listen stream's messages and its own call around them. `pauseMs`: how long
 * the client thinks before it calls (an agent replayed can be slower than the recording: the message waits for the
 * call, not for the recorded gap).
 */
async function scenario(url: string, change: (() => void) | undefined, pauseMs = 150): Promise<string[]> {
  const seen: string[] = [];
  const close = await listen(url, seen);
  try {
    await until(() => seen.length > 0); // the acknowledgement
    await new Promise((r) => setTimeout(r, pauseMs));
    seen.push('call echo');
    seen.push(`answer ${String(await echo(url))}`);
    change?.(); // live: the change follows the call
    await until(() => seen.length > 3);
    return seen;
  } finally {
    close();
  }
}

it('listen stream: tools/list_changed arrives after the call it followed, also in replay (--replay-timing none)', async () => {
  const server = await startV2Server();
  const cacheDir = await tempDir();
  try {
    const direct = await scenario(server.url, () => server.notify.toolsChanged());
    expect(direct).toEqual([
      'stream notifications/subscriptions/acknowledged',
      'call echo',
      'answer 200',
      'stream notifications/tools/list_changed',
    ]);
    const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    const ended = new Promise<ExchangeEvent>((resolve) =>
      recorder.events.on('exchange', (e) => e.method === 'subscriptions/listen' && resolve(e)),
    );
    const recorded = await scenario(recorder.url, () => server.notify.toolsChanged());
    expect((await ended).cassette).toBe('recorded'); // the stream ended when the client closed it: then it is written
    await recorder.flush();
    await recorder.close();
    await server.close();
    expect(recorded).toEqual(direct);
    // the call the stream's message waits for is the one replay counts (a cassette's other calls are not)
    const store = await CassetteStore.open(cacheDir);
    expect([...awaitedCalls(store)]).toEqual([expect.stringMatching(/^tools_call_echo_[0-9a-f]{16}$/)]);
    store.close();
    expect(await replayThrough(cacheDir, (url) => scenario(url, undefined))).toEqual(direct);
    expect(await replayThrough(cacheDir, (url) => scenario(url, undefined, 1_000))).toEqual(direct);
  } finally {
    await server.close();
  }
}, 60_000);
