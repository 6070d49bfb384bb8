/**
 * Issue 21 item 1: recording must not block a long-lived stream. A 2026-07-28 `subscriptions/listen` answer is a
 * stream that ends only when the client closes it; with the default durable commit (the answer waits for its entry
 * on disk) its acknowledgement and each change notification must still reach the client while it is open, and the
 * stream's entry is committed once it ends. Read off the wire as it arrives (raw HTTP, no SDK client in between), a
 * change published only after the client holds the acknowledgement; direct, through record (durable), through
 * replay with the server stopped.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { pythonSdkMissing, startPythonServer } from '../helpers/python-sdk.js';
import { replayThrough } from '../helpers/recording.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';
import { MODERN, MODERN_HEADERS, modernMeta, openListen } from '../helpers/listen-stream.js';
import { startLinesServer } from '../fixtures/lines-server.js';

afterAll(removeTempDirs);

const META = modernMeta('listen-client');
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
const listen = (url: string): ReturnType<typeof openListen> => openListen(url, META);

/** The client's view: the first two messages of the stream, the second one made by a change after the first arrived. */
async function scenario(
  url: string,
  change: (() => void) | undefined,
): Promise<{ acknowledged: unknown; changed: unknown }> {
  const stream = await listen(url);
  const acknowledged = await stream.next(); // only then is the change made: it cannot be in the same write
  change?.();
  const changed = await stream.next();
  stream.close();
  return { acknowledged, changed };
}

describe('recording a subscriptions/listen stream (durable commit)', () => {
  it('the acknowledgement and a later change reach the client while the stream is open; the entry is committed when it ends', async () => {
    const server = await startV2Server();
    const cacheDir = await tempDir();
    try {
      const direct = await scenario(server.url, () => server.notify.toolsChanged());
      expect(direct.acknowledged).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      expect(direct.changed).toMatchObject({ method: 'notifications/tools/list_changed' });

      const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, durable: true });
      const ended = new Promise<ExchangeEvent>((resolve) =>
        recorder.events.on('exchange', (e) => e.method === 'subscriptions/listen' && resolve(e)),
      );
      const recorded = await scenario(recorder.url, () => server.notify.toolsChanged());
      const exchange = await ended; // the stream ended when the client closed it: then its entry is written
      await recorder.flush();
      await recorder.close();
      expect(recorded).toEqual(direct);
      expect(exchange.cassette).toBe('recorded');

      await server.close();
      const [file] = (await distilledFiles(cacheDir)).filter((f) => f.includes('subscriptions_listen'));
      const entry = JSON.parse(await readFile(join(cacheDir, file), 'utf8')) as { stream?: { method: string }[] };
      expect(entry.stream?.map((m) => m.method)).toEqual([
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
      ]);
      expect(await replayThrough(cacheDir, (url) => scenario(url, undefined))).toEqual(direct);
    } finally {
      await server.close();
    }
  });
});

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK listen stream: ${missing}`);

/** The client's view of a listen stream: its first message, then the client closes it. */
async function firstMessage(url: string): Promise<unknown> {
  const stream = await listen(url);
  try {
    return await stream.next();
  } finally {
    stream.close();
  }
}

describe.skipIf(missing !== undefined)('the Python SDK server: a listen stream recorded (durable commit)', () => {
  it('the acknowledgement reaches the client while the stream is open: direct, through record, through replay (server stopped)', async () => {
    const server = await startPythonServer();
    const cacheDir = await tempDir();
    try {
      const direct = await firstMessage(server.url);
      expect(direct).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, durable: true });
      const ended = new Promise<ExchangeEvent>((resolve) =>
        recorder.events.on('exchange', (e) => e.method === 'subscriptions/listen' && resolve(e)),
      );
      const recorded = await firstMessage(recorder.url);
      expect((await ended).cassette).toBe('recorded'); // written once the client closed the stream
      await recorder.flush();
      await recorder.close();
      await server.close();
      expect(recorded).toEqual(direct);
      expect(await replayThrough(cacheDir, firstMessage)).toEqual(direct);
    } finally {
      await server.close();
    }
  }, 60_000);
});

/** A 2026-07-28 tools/call over raw HTTP: its answer's content type and parsed body (read whole). */
async function callTool(url: string, name: string): Promise<{ type: string; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name, arguments: {}, _meta: META } }),
  });
  return { type: (res.headers.get('content-type') ?? '').split(';')[0], body: JSON.parse(await res.text()) };
}

/**
 * The client's view of a listen stream sent as chunked JSON lines: its framing, the acknowledgement, and the change
 * the trigger call (a pretty-printed JSON answer split across chunks) makes once the client holds the acknowledgement.
 */
async function linesScenario(url: string): Promise<{ type: string; messages: unknown[]; call: unknown }> {
  const stream = await listen(url);
  try {
    const acknowledged = await stream.next();
    const call = await callTool(url, 'test_trigger_tool_change');
    const changed = await stream.next();
    return { type: stream.contentType, messages: [acknowledged, changed], call };
  } finally {
    stream.close();
  }
}

describe('a listen stream as chunked JSON lines (issue 33 item 1), recorded', () => {
  it.each([
    ['the durable commit', true, false],
    ['--no-fsync', false, false],
    ['a response breakpoint that may hold any method (the answer goes message by message, re-serialised)', true, true],
  ])(
    'with %s: each line reaches the client as it comes, the stream is recorded when the client closes it, and replay sends it in the same framing',
    async (_name, durable, held) => {
      const server = await startLinesServer();
      const cacheDir = await tempDir();
      try {
        const direct = await linesScenario(server.url);
        expect(direct.type).toBe('application/json');
        expect(direct.messages).toMatchObject([
          { method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUBSCRIPTION]: 7 } } },
          { method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION]: 7 } } },
        ]);
        expect(direct.call).toMatchObject({
          type: 'application/json',
          body: { id: 8, result: { resultType: 'complete' } },
        });

        const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, durable });
        // it may hold every answer (so each is relayed message by message) and holds none: its condition never matches
        const never = { path: 'params.never', op: 'equals' as const, value: 'never' };
        if (held) recorder.breakpoints.set([{ method: '*', tool: '*', when: 'response', condition: never }]);
        const ended = new Promise<ExchangeEvent>((resolve) =>
          recorder.events.on('exchange', (e) => e.method === 'subscriptions/listen' && resolve(e)),
        );
        const recorded = await linesScenario(recorder.url);
        const exchange = await ended;
        await recorder.flush();
        await recorder.close();
        expect(recorded).toEqual(direct);
        expect(exchange.cassette).toBe('recorded');

        await server.close();
        const [file] = (await distilledFiles(cacheDir)).filter((f) => f.includes('subscriptions_listen'));
        const entry = JSON.parse(await readFile(join(cacheDir, file), 'utf8')) as {
          stream?: { method: string }[];
          framing?: unknown;
          unanswered?: boolean;
        };
        expect(entry.stream?.map((m) => m.method)).toEqual([
          'notifications/subscriptions/acknowledged',
          'notifications/tools/list_changed',
        ]);
        expect(entry).toMatchObject({ framing: { type: 'json', lines: true }, unanswered: true });
        const [call] = (await distilledFiles(cacheDir)).filter((f) => f.includes('test_trigger_tool_change'));
        // the split JSON answer is one JSON body, replayed as one
        expect(JSON.parse(await readFile(join(cacheDir, call), 'utf8'))).toMatchObject({ framing: { type: 'json' } });
        expect(JSON.parse(await readFile(join(cacheDir, call), 'utf8')).framing.lines).toBeUndefined();
        expect(await replayThrough(cacheDir, linesScenario)).toEqual(direct);
      } finally {
        await server.close();
      }
    },
  );
});

/** A 2026-07-28 tools/call of lines_steps, its body read raw: content type, and each line parsed. */
async function stepsCall(url: string, token: string): Promise<{ type: string; lines: unknown[] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...MODERN_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'lines_steps',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'lines_steps', arguments: { steps: 2 }, _meta: { ...META, progressToken: token } },
    }),
  });
  const text = await res.text();
  const lines = text.split('\n').filter((l) => l.trim());
  return { type: (res.headers.get('content-type') ?? '').split(';')[0], lines: lines.map((l) => JSON.parse(l)) };
}

describe('an answer as JSON lines: progress, then the result (issue 33 item 1)', () => {
  it('is recorded with its stream (durable commit) and replayed line by line, the live progress token in it', async () => {
    const server = await startLinesServer();
    const cacheDir = await tempDir();
    try {
      const direct = await stepsCall(server.url, 'direct-token');
      expect(direct.lines).toHaveLength(3);
      const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, durable: true });
      const recorded = await stepsCall(recorder.url, 'direct-token');
      await recorder.flush();
      await recorder.close();
      expect(recorded).toEqual(direct);
      await server.close();
      const [file] = (await distilledFiles(cacheDir)).filter((f) => f.includes('lines_steps'));
      const entry = JSON.parse(await readFile(join(cacheDir, file), 'utf8')) as {
        framing?: unknown;
        stream?: unknown[];
      };
      expect(entry.framing).toEqual({ type: 'json', lines: true });
      expect(entry.stream).toHaveLength(2);
      const replayed = await replayThrough(cacheDir, (url) => stepsCall(url, 'replay-token'));
      const withToken = (token: string) =>
        JSON.parse(JSON.stringify(direct).replaceAll('direct-token', token)) as typeof direct;
      expect(replayed).toEqual(withToken('replay-token'));
    } finally {
      await server.close();
    }
  });
});
