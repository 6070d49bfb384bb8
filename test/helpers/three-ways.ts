/**
 * The replay-fidelity harness: one client scenario run three ways — straight at a real MCP server, through a
 * recording proxy, and through a replaying proxy with the server stopped — so a test can assert the three saw the
 * same thing.
 *
 *   const { direct, recorded, replayed } = await threeWays(() => startSdkServer(), async (url) => observe(url));
 *   expect(recorded).toEqual(direct);
 *   expect(replayed).toEqual(direct);
 */
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { tempDir } from './temp.js';

export interface Upstream {
  url: string;
  close(): Promise<void>;
}

export interface ThreeWays<T> {
  direct: T;
  recorded: T;
  replayed: T;
  cacheDir: string;
  /** the exchanges each proxy saw, for the timeline's view of them */
  recordEvents: ExchangeEvent[];
  replayEvents: ExchangeEvent[];
}

export interface ThreeWaysOptions {
  /** replay's --replay-timing */
  replayTiming?: string;
  /** a scenario run once through the recording proxy before the compared ones (e.g. a second user) */
  alsoRecord?: (url: string) => Promise<unknown>;
}

export async function threeWays<T>(
  start: () => Promise<Upstream>,
  scenario: (url: string, way: 'direct' | 'record' | 'replay') => Promise<T>,
  options: ThreeWaysOptions = {},
): Promise<ThreeWays<T>> {
  const upstream = await start();
  const cacheDir = await tempDir();
  let recorder: RunningProxy | undefined;
  let replayer: RunningProxy | undefined;
  const recordEvents: ExchangeEvent[] = [];
  const replayEvents: ExchangeEvent[] = [];
  try {
    const direct = await scenario(upstream.url, 'direct');
    recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
    recorder.events.on('exchange', (e) => recordEvents.push(e));
    if (options.alsoRecord) await options.alsoRecord(recorder.url);
    const recorded = await scenario(recorder.url, 'record');
    await recorder.flush();
    await recorder.close();
    recorder = undefined;
    await upstream.close(); // replay answers alone from here on
    replayer = await startProxy({ mode: 'replay', cacheDir, replayTiming: options.replayTiming });
    replayer.events.on('exchange', (e) => replayEvents.push(e));
    const replayed = await scenario(replayer.url, 'replay');
    return { direct, recorded, replayed, cacheDir, recordEvents, replayEvents };
  } finally {
    await recorder?.close().catch(() => {});
    await replayer?.close().catch(() => {});
    await upstream.close().catch(() => {});
  }
}

/** What a client call ended with, comparable across the three ways: the result, or the error's code, message, data. */
export type Outcome = { ok: unknown } | { error: { code?: unknown; message: string; data?: unknown } };

export async function outcome(call: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await call };
  } catch (e) {
    const error = e as { code?: unknown; message: string; data?: unknown };
    return {
      error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
    };
  }
}

/** A raw HTTP exchange, comparable across the three ways: status, content type, the JSON-RPC messages of the body. */
export interface RawAnswer {
  status: number;
  type: string;
  messages: unknown[];
}

export async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer & { sessionId?: string; sse: { ids: boolean; retry: boolean; priming: boolean } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const type = (res.headers.get('content-type') ?? '').split(';')[0];
  const messages: unknown[] = [];
  const sse = { ids: false, retry: false, priming: false };
  if (type === 'text/event-stream') {
    for (const event of text.split(/\n\n/)) {
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      if (/^id:/m.test(event)) sse.ids = true;
      if (/^retry:/m.test(event)) sse.retry = true;
      if (/^id:/m.test(event) && data === '') sse.priming = true;
      if (data) messages.push(JSON.parse(data));
    }
  } else if (text) messages.push(JSON.parse(text));
  return { status: res.status, type, messages, sessionId: res.headers.get('mcp-session-id') ?? undefined, sse };
}

/** Drops what differs by nature between runs (session ids), keeping everything else. */
export const withoutSession = <T extends { sessionId?: string }>(answer: T): Omit<T, 'sessionId'> => {
  const { sessionId: _id, ...rest } = answer;
  return rest;
};
