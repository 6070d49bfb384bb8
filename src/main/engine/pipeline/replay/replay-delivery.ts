import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { CassetteEntry, Framing } from '../../../../shared/cassette/entry.js';
import { isRequest, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { META } from '../../../../shared/mcp-protocol.js';
import { sendJson, sseEvent } from '../../http/sse.js';
import type { Stage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import {
  REPLAYED_STREAMS_KEPT,
  REPLY_TIMEOUT_MS,
  waitForReply,
  type ReplayedStream,
  type ReplaySession,
} from './replay-session.js';
import { EventIds } from './replay-event-ids.js';
import { RESUME_WAIT_MS, type Session } from '../core/session.js';
import { canonicalJson } from '../../cassette/keys.js';
import type { CallWaiters } from '../core/call-order.js';

/** --replay-timing: undefined plays at once; a speed (1 = as recorded, 2 = twice as fast) waits the recorded delays ÷ speed. */
export type ReplaySpeed = number | undefined;

/** how long a listen stream's message waits at most for the call it followed in the recording */
const AFTER_CALL_WAIT_MS = 30_000;

const wait = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

export interface ReplayAnswer {
  stage: Stage;
  session: Session;
  /** what the replay keeps of that session */
  state: ReplaySession;
  exchange: LiveExchange;
  entry: CassetteEntry;
  res: ServerResponse;
  /** the client's Accept header */
  accept: string | undefined;
  /** headers of the answer (the Mcp-Session-Id of a replayed initialize) */
  headers: Record<string, string>;
  speed: ReplaySpeed;
  /** the framing of an entry that kept none (mcp-rewind's bare results): how the cassette's other answers travelled */
  usualFraming?: Framing;
  /** the calls replay answered: a listen stream's message waits for the call it followed (call-order.ts) */
  calls?: CallWaiters;
}

/**
 * JSON, JSON lines or SSE: as recorded when the client accepts it (entries that kept no framing: as the others, SSE
 * when something streamed).
 */
export function framingFor(
  entry: CassetteEntry,
  accept: string | undefined,
  usual?: 'json' | 'sse',
): 'json' | 'lines' | 'sse' {
  const a = accept ?? '';
  const sse = a.includes('text/event-stream');
  const json = a.includes('application/json') || a.includes('*/*') || !sse;
  const recorded = entry.framing?.type ?? (entry.stream?.length || entry.unanswered ? 'sse' : (usual ?? 'json'));
  if (recorded === 'sse' && sse) return 'sse';
  if (recorded === 'json' && json) return entry.framing?.lines ? 'lines' : 'json';
  return json && !entry.stream?.length ? 'json' : 'sse';
}

/**
 * Plays a recorded exchange back, as it travelled: one JSON body, or an SSE stream with the recorded framing (event
 * ids, `retry`, a priming event) carrying, in recorded order, the notifications (progress tokens and subscription ids
 * rewritten to the live request's), the server→client requests (sent with ids of this session; the client's reply is
 * awaited — one that differs from the recorded reply is logged and flagged, and the exchange goes on), then the
 * answer. A stream the server closed early ends here too; the client resumes it (GET + Last-Event-ID) and the rest
 * comes there. With a speed, the recorded delays are waited out. A subscriptions/listen stream the client closed in
 * the recording stays open until this client closes it.
 */
export async function replayAnswer(a: ReplayAnswer): Promise<void> {
  const { exchange, entry, res, speed } = a;
  const status = entry.status ?? 200;
  const timing = speed === undefined ? undefined : entry.timing;
  // a bare entry (mcp-rewind's form keeps no framing) travels as the server's other answers did
  const framing = entry.framing ?? a.usualFraming;
  const travels = framingFor(entry, a.accept, a.usualFraming?.type);
  if (travels === 'json') {
    if (timing?.answerMs) await wait(timing.answerMs / (speed ?? 1));
    if (!res.destroyed) sendJson(res, status, asWritten(exchange.response, entry, framing), a.headers);
    return a.stage.hooks.finish(exchange, a.session);
  }
  if (travels === 'lines') {
    // chunked newline-delimited JSON, as recorded: each message on its line as it comes
    res.writeHead(status, { ...a.headers, 'content-type': 'application/json', 'cache-control': 'no-cache' });
    res.flushHeaders();
    return new Playback(a, undefined, true).from(0, res);
  }
  res.writeHead(status, { ...a.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ids = framing?.eventIds
    ? new EventIds(a.state.eventIds, entry.stream?.length ?? 0, entry.framing?.ids)
    : undefined;
  const retry = framing?.retryMs;
  if (framing?.priming)
    res.write(`id: ${ids?.next() ?? randomUUID()}\n${retry !== undefined ? `retry: ${retry}\n` : ''}data: \n\n`);
  else if (retry !== undefined) res.write(`retry: ${retry}\n\n`);
  else res.flushHeaders();
  const play = new Playback(a, ids);
  play.keep();
  await play.from(0, res);
}

/** The messages of one recorded stream, played from an index onto a response (the POST's, or a resumed GET's). */
class Playback {
  private readonly stream: JsonRpcMessage[];
  private readonly liveToken: unknown;
  private elapsed = 0;
  /** a listen stream: how many answers of each key it waited for, on top of those answered before it opened */
  private readonly awaited = new Map<string, number>();

  constructor(
    private readonly a: ReplayAnswer,
    private readonly ids: EventIds | undefined,
    /** JSON lines: one message a line, no SSE framing */
    private readonly lines = false,
  ) {
    this.stream = (a.entry.stream ?? []) as unknown as JsonRpcMessage[];
    this.liveToken = a.exchange.progressToken;
  }

  /** a message as it travels: an SSE event (with its id), or a line */
  private framed(message: unknown, index: number): string {
    return this.lines ? `${JSON.stringify(message)}\n` : sseEvent(message, this.ids?.next(index));
  }

  private write(res: ServerResponse, message: unknown, index: number): void {
    res.write(this.framed(message, index));
  }

  /** the recorded gap before message i (or the answer, i = stream length), at the chosen speed */
  private async gap(i: number): Promise<void> {
    const { speed } = this.a;
    const timing = this.a.entry.timing;
    if (speed === undefined || !timing) return;
    const at = i < this.stream.length ? timing.streamMs?.[i] : timing.answerMs;
    if (at === undefined) return;
    await wait((at - this.elapsed) / speed);
    this.elapsed = Math.max(this.elapsed, at);
  }

  /**
   * Without --replay-timing: a listen stream's message that followed a call in the recording waits until this client
   * made that call, so it arrives after the call that caused it, not at once, however slower than the recording the
   * client is (an agent thinks between calls). A client that never makes it gets the message after
   * AFTER_CALL_WAIT_MS, or the recorded gap when that was longer; a client that closed the stream waits no more.
   */
  private async afterCall(i: number, res: ServerResponse): Promise<void> {
    const { calls, speed, entry } = this.a;
    const key = entry.streamAfter?.[i];
    if (!calls || speed !== undefined || !key || entry.streamAfter?.[i - 1] === key) return;
    const base = this.awaited.get(key) ?? calls.count(key);
    this.awaited.set(key, base + 1);
    const ms = entry.timing?.streamMs;
    const gap = Math.max(AFTER_CALL_WAIT_MS, ms?.[i] !== undefined ? ms[i] - (ms[i - 1] ?? 0) : 0);
    let timer: NodeJS.Timeout | undefined;
    let stop: () => void = () => {};
    const given = new Promise<void>((resolve) => {
      stop = resolve;
      timer = setTimeout(resolve, gap);
      res.once('close', resolve);
    });
    await Promise.race([calls.until(key, base + 1), given]);
    clearTimeout(timer);
    res.off('close', stop);
  }

  /** `resumed`: on the stream the client resumed (GET + Last-Event-ID), which is not closed early again */
  async from(start: number, res: ServerResponse, resumed = false): Promise<void> {
    const { exchange, entry, stage, session } = this.a;
    // where the server closed its POST stream in the recording (only a stream with event ids can be resumed)
    const resumeAt = !resumed && this.ids ? entry.framing?.resumedAfter : undefined;
    for (let i = start; i < this.stream.length && !res.destroyed; i++) {
      if (i === resumeAt && this.ids?.last !== undefined) return this.closeEarly(res, i);
      const message = this.stream[i];
      if (isResponse(message)) continue; // a recorded client reply: compared below, never sent
      await this.gap(i);
      await this.afterCall(i, res);
      if (!isRequest(message)) {
        const live = this.live(message);
        if (live === undefined) continue; // progress this client did not ask for
        exchange.addStreamed(live);
        this.write(res, live, i);
        continue;
      }
      await this.ask(res, message, i);
    }
    if (res.destroyed) return void (await stage.hooks.finish(exchange, session));
    if (resumeAt !== undefined && resumeAt >= this.stream.length && this.ids?.last !== undefined && !entry.unanswered)
      return this.closeEarly(res, this.stream.length);
    await this.gap(this.stream.length);
    if (entry.unanswered) {
      // a subscription the client ended in the recording: open until this client ends it
      res.once('close', () => void stage.hooks.finish(exchange, session));
      return;
    }
    const answer = asWritten(this.liveAnswer(), entry, entry.framing ?? this.a.usualFraming);
    if (!res.destroyed) res.end(this.framed(answer, this.stream.length));
    await stage.hooks.finish(exchange, session);
  }

  /**
   * Kept on the session: a client that dropped this stream and resumes it with Last-Event-ID gets what followed that
   * event — the notifications and the answer, as a server with an event store redelivers them (requests to the
   * client are not asked again).
   */
  keep(): void {
    const { ids } = this;
    if (!ids) return;
    const { played } = this.a.state;
    played.set(ids.stream, { resume: (after, res) => this.redeliver(after, res), forget: () => ids.forget() });
    if (played.size <= REPLAYED_STREAMS_KEPT) return;
    const [oldest, stream] = played.entries().next().value as [string, ReplayedStream];
    played.delete(oldest);
    stream.forget();
  }

  /** what followed recorded message `after` (-1: the priming event), as it went out the first time */
  private redeliver(after: number, res: ServerResponse): void {
    const ids = this.ids as EventIds;
    const from = after + 1;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let i = from; i < this.stream.length; i++) {
      const message = this.stream[i];
      if (isResponse(message) || isRequest(message)) continue;
      const live = this.live(message);
      if (live !== undefined) this.write(res, live, i);
    }
    if (from <= this.stream.length && !this.a.entry.unanswered)
      res.write(sseEvent(this.liveAnswer(), ids.next(this.stream.length)));
    res.end();
  }

  /** the server closed its POST stream here in the recording: so does replay; the client resumes with Last-Event-ID */
  private closeEarly(res: ServerResponse, at: number): void {
    const { session, exchange, stage } = this.a;
    const id = this.ids?.last as string;
    const finish = (): Promise<void> => stage.hooks.finish(exchange, session);
    session.resumable.set(id, {
      ready: () => true,
      resume: async (_req, getRes) => {
        getRes.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        getRes.flushHeaders();
        await this.from(at, getRes, true);
      },
      timer: setTimeout(() => {
        session.resumable.delete(id);
        void finish();
      }, RESUME_WAIT_MS).unref(),
    });
    res.end();
  }

  /** the final answer, its subscription id the live request's (a listen stream closed by the server) */
  private liveAnswer(): JsonRpcResponse {
    const response = this.a.exchange.response as JsonRpcResponse;
    if (!('result' in response)) return response;
    const meta = response.result._meta as Record<string, unknown> | undefined;
    if (!meta || !(META.subscriptionId in meta)) return response;
    return {
      ...response,
      result: { ...response.result, _meta: { ...meta, [META.subscriptionId]: this.a.exchange.request.id } },
    };
  }

  /** a recorded notification as this client gets it: its progress token and subscription id are the live request's */
  private live(message: JsonRpcMessage): JsonRpcMessage | undefined {
    const params = (message as { params?: Record<string, unknown> }).params;
    if (!params) return message;
    let out = message;
    if ('progressToken' in params) {
      if (this.liveToken === undefined) return undefined;
      out = { ...message, params: { ...params, progressToken: this.liveToken } } as JsonRpcMessage;
    }
    const meta = params._meta as Record<string, unknown> | undefined;
    if (meta && META.subscriptionId in meta) {
      const p = (out as { params: Record<string, unknown> }).params;
      out = {
        ...out,
        params: { ...p, _meta: { ...meta, [META.subscriptionId]: this.a.exchange.request.id } },
      } as JsonRpcMessage;
    }
    return out;
  }

  /** a recorded server→client request, asked again of this client; its reply is compared with the recorded one */
  private async ask(
    res: ServerResponse,
    message: JsonRpcMessage & { id: string | number; method: string },
    i: number,
  ): Promise<void> {
    const { state, exchange, stage } = this.a;
    const id = `rewind-${state.nextRequestId++}`;
    const outgoing = { ...message, id };
    exchange.addStreamed(outgoing);
    const reply = waitForReply(state, id);
    this.write(res, outgoing, i);
    const got = await reply;
    const recorded = this.stream.slice(i + 1).find((m) => isResponse(m) && m.id === message.id) as
      JsonRpcResponse | undefined;
    if (!got) {
      exchange.timeline.flags.push(`no reply to ${message.method} within ${REPLY_TIMEOUT_MS / 1000} s`);
      return;
    }
    exchange.addStreamed(got);
    const strip = (r: JsonRpcResponse | undefined): unknown => (r ? ('result' in r ? r.result : r.error) : undefined);
    if (recorded && canonicalJson(strip(got)) !== canonicalJson(strip(recorded))) {
      const flag = `client reply to ${message.method} differs from the recorded one`;
      exchange.timeline.flags.push(flag);
      stage.log(
        `replay: ${exchange.key}: ${flag}: got ${JSON.stringify(strip(got)).slice(0, 200)}, recorded ${JSON.stringify(strip(recorded)).slice(0, 200)}`,
        'warn',
      );
    }
  }
}

/**
 * The recorded answer with its members in the order the server wrote them (`framing.envelope`), unless a rule or a
 * breakpoint changed it (then it is the proxy's message).
 */
function asWritten(response: JsonRpcMessage | undefined, entry: CassetteEntry, framing: Framing | undefined): unknown {
  const order = framing?.envelope;
  if (!order || !response) return response;
  const recorded = 'result' in response ? response.result === entry.result : 'error' in response;
  if (!recorded) return response;
  const out: Record<string, unknown> = {};
  const members = response as unknown as Record<string, unknown>;
  for (const key of order) if (key in members) out[key] = members[key];
  for (const key of Object.keys(members)) if (!(key in out)) out[key] = members[key];
  return out;
}
