import { EventEmitter } from 'node:events';
import {
  DEFAULT_BREAKPOINT_HOLD_S,
  ToolArgumentsSchema,
  isServerRequestMethod,
  resultName,
  type BreakpointRule,
  type BreakpointRuleInput,
  type BreakpointStage,
  type PausedCall,
} from '../../../../shared/breakpoints.js';
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { describeZodError } from '../../../../shared/rules/schema.js';
import type * as ResultCheck from '../../../../shared/insight/result-check.js';
import { BreakpointFailedError } from '../../errors.js';
import { BreakpointMatcher, requestName } from './breakpoint-match.js';
import type { Closable, Hook, Need, ServerMessage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { ABANDONED, failedMessage, type Resolution } from './pause-resolution.js';
import { holdReplies } from './reply-hold.js';
import type { Session } from '../core/session.js';

/** how long a call stays paused before it resumes unchanged by itself (below the clients' usual 60 s timeout) */
export const DEFAULT_PAUSE_MS = DEFAULT_BREAKPOINT_HOLD_S * 1000;

interface Waiting {
  call: PausedCall;
  settle: (resolution: Resolution) => void;
}

/** the protocol's result schemas (the SDK's, for an edited result): loaded when a result is first held, not before */
let resultCheck: typeof ResultCheck | undefined;

let nextPause = 1;
/** server requests of one session remembered at most, awaiting the client's reply */
const MAX_ASKED = 100;

/**
 * The breakpoints of one endpoint. With no rule set, `active` is false and the pipeline never looks further
 * (one property read per POST). A matching request (breakpoint-match.ts) pauses: it is published (`change`), and waits for
 * resume (maybe with edited arguments / result), fail, or the timeout (resumes unchanged).
 */
export class Breakpoints implements Hook {
  readonly name = 'breakpoints';
  /** any rule at all: the only thing the hot path checks */
  active = false;
  private readonly matcher = new BreakpointMatcher();
  private readonly waiting = new Map<string, Waiting>();
  private readonly events = new EventEmitter<{ change: [] }>();
  /** the server's requests a reply rule may hold, seen on a session's GET stream (outside any request), by id */
  private readonly askedOnStream = new WeakMap<Session, Map<JsonRpcId, JsonRpcRequest>>();

  constructor(public timeoutMs = DEFAULT_PAUSE_MS) {}

  /** Replaces the rules. Calls already paused stay paused. */
  set(rules: ReadonlyArray<BreakpointRuleInput & { id?: string }>): BreakpointRule[] {
    this.matcher.set(rules);
    this.active = this.matcher.list.length > 0;
    this.changed();
    return this.rules();
  }

  rules(): BreakpointRule[] {
    return this.matcher.list.map((r) => ({ ...r }));
  }

  paused(): PausedCall[] {
    return [...this.waiting.values()].map((w) => ({ ...w.call }));
  }

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** rules or paused calls changed */
  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => void this.events.off('change', listener);
  }

  /** the rule that holds this request at this stage (and its answer, at the response stage), as one line */
  matches(request: JsonRpcRequest, stage: BreakpointStage, response?: JsonRpcResponse): string | undefined {
    return this.active ? this.matcher.holds(request, stage, response) : undefined;
  }

  /**
   * Request stage: a matching request pauses before it is planned, so edited arguments go through rules, cassette
   * matching and the exchange key like the client's own. Edits are made in place; a failed call is answered here.
   */
  async onRequest(exchange: LiveExchange, _session: unknown, res: Closable): Promise<void> {
    const { request } = exchange;
    const matched = this.matches(request, 'request');
    if (!matched) return;
    const resolution = await this.pause({ ...this.heldRequest(exchange, matched), stage: 'request' }, res, exchange);
    if (resolution.action === 'abandoned') {
      // never sent upstream: the answer the proxy gives here goes to a client that no longer waits for it
      exchange.timeline.flags.push(`released at a breakpoint: ${ABANDONED[resolution.by]}`);
      if (resolution.by === 'gone')
        exchange.end('client-gone', 'the client went away while the call was held at a breakpoint');
      exchange.respond(
        new BreakpointFailedError(`mcp-rewind: released at a breakpoint: ${ABANDONED[resolution.by]}`).toResponse(
          request.id,
        ),
      );
    } else if (resolution.action === 'fail') {
      exchange.respond(new BreakpointFailedError(failedMessage(resolution.message)).toResponse(request.id));
      exchange.timeline.flags.push('failed at a breakpoint');
    } else if (resolution.params) {
      exchange.timeline.originalRequest = { ...request, params: { ...request.params } }; // for the timeline
      const toolCall = request.method === 'tools/call';
      exchange.timeline.flags.push(toolCall ? 'arguments edited at a breakpoint' : 'params edited at a breakpoint');
      request.params = toolCall ? { ...request.params, arguments: resolution.params } : resolution.params;
      exchange.delivery.edited = true;
    }
  }

  /** what the UI is shown of a held request: the tool's arguments, or another method's params */
  private heldRequest(
    exchange: LiveExchange,
    matched: string,
  ): Omit<PausedCall, 'id' | 'since' | 'timeoutAt' | 'stage'> {
    const { request } = exchange;
    const args = request.params?.arguments;
    const toolCall = request.method === 'tools/call';
    return {
      sessionId: exchange.sessionId,
      tool: requestName(request),
      matched,
      ...(toolCall ? {} : { method: request.method, params: { ...request.params } }),
      ...(toolCall ? { arguments: args && typeof args === 'object' ? (args as Record<string, unknown>) : {} } : {}),
      ...(exchange.protocolVersion ? { protocolVersion: exchange.protocolVersion } : {}),
    };
  }

  /**
   * With no rule, nothing (one property read per POST); else a matching response is held, and with a rule on the
   * client's replies every answer stream is read (the server's requests on it are what those replies answer).
   */
  need(exchange?: LiveExchange): Need {
    if (!exchange) return this.active ? 'hold' : 'none';
    if (!this.active) return 'none';
    if (this.matcher.mayHold(exchange.request, 'response')) return 'hold';
    return this.matcher.holdsReplies ? 'observe' : 'none';
  }

  /** Response stage: holds a matching exchange's result (not a JSON-RPC error) and applies the edit or failure. */
  async onResponse(exchange: LiveExchange, _session: unknown, _detail: unknown, res: Closable): Promise<void> {
    const response = exchange.response;
    if (!response || !('result' in response)) return;
    const matched = this.matches(exchange.request, 'response', response);
    if (!matched) return;
    const { arguments: _args, params: _params, ...held } = this.heldRequest(exchange, matched);
    const resolution = await this.pause({ ...held, stage: 'response', result: response.result }, res, exchange);
    if (resolution.action === 'abandoned') {
      exchange.timeline.flags.push(`released at a breakpoint: ${ABANDONED[resolution.by]}`);
      if (resolution.by === 'gone')
        exchange.end('client-gone', 'the client went away while the answer was held at a breakpoint');
      return;
    }
    if (resolution.action === 'fail' || resolution.result) exchange.timeline.originalResponse ??= response;
    if (resolution.action === 'fail') {
      exchange.respond(new BreakpointFailedError(failedMessage(resolution.message)).toResponse(exchange.request.id));
      exchange.timeline.flags.push('failed at a breakpoint');
    } else if (resolution.result) {
      exchange.respond({ jsonrpc: '2.0', id: exchange.request.id, result: resolution.result });
      exchange.timeline.flags.push('result edited at a breakpoint');
    }
  }

  /**
   * The client's replies to the server's requests (sampling/createMessage…) of a POST: those a rule holds pause
   * before they go upstream, and are edited or failed in place. True when one of them changed.
   */
  onReplies(messages: JsonRpcMessage[], session: Session, res: Closable): Promise<boolean> {
    return this.watchesStreams() ? holdReplies(this, messages, session, res) : Promise.resolve(false);
  }

  /** a rule holds replies: GET streams are read (their server requests are what those answer), replies looked at */
  watchesStreams(): boolean {
    return this.active && this.matcher.holdsReplies;
  }

  onServerMessage(message: ServerMessage, session: Session): void {
    if (!('id' in message) || !this.watchesStreams() || !isServerRequestMethod(message.method)) return;
    let asked = this.askedOnStream.get(session);
    if (!asked) this.askedOnStream.set(session, (asked = new Map()));
    if (asked.size >= MAX_ASKED) asked.delete(asked.keys().next().value as JsonRpcId); // a client that never answers
    asked.set(message.id, message);
  }

  /** The server's request on the GET stream a client reply answers (forgotten once asked). */
  takeAsked(session: Session, id: JsonRpcId): JsonRpcRequest | undefined {
    const asked = this.askedOnStream.get(session);
    const request = asked?.get(id);
    asked?.delete(id);
    return request;
  }

  /**
   * Continues a paused call, with edited arguments (a tools/call's request stage), params (another method's request
   * stage) or result (response stage).
   */
  resume(id: string, edits: { arguments?: unknown; params?: unknown; result?: unknown } = {}): void {
    const waiting = this.take(id, false);
    const { stage, method = 'tools/call' } = waiting.call;
    const [field, other] =
      method === 'tools/call' ? (['arguments', 'params'] as const) : (['params', 'arguments'] as const);
    if (edits[other] !== undefined) throw new Error(`${other}: breakpoint ${id} holds a ${method}: edit its ${field}`);
    const request = edits[field];
    if (request !== undefined && stage !== 'request')
      throw new Error(`${field}: breakpoint ${id} holds a result, not a request`);
    if (edits.result !== undefined && stage !== 'response')
      throw new Error(`result: breakpoint ${id} holds a request, not a result`);
    let resolution: Resolution = { action: 'resume' };
    if (request !== undefined) {
      const parsed = ToolArgumentsSchema.safeParse(request);
      if (!parsed.success) throw new Error(`${field}: must be a JSON object (${describeZodError(parsed.error)})`);
      resolution = { action: 'resume', params: parsed.data };
    }
    if (edits.result !== undefined) {
      // the protocol's own schema for the call's revision (the SDK's), as the client's SDK will judge it
      const { resultProblems, resultSchemaSource } = resultCheck!; // loaded by pause(): a result is held here
      const problems = resultProblems(method, edits.result, waiting.call.protocolVersion);
      if (problems.length > 0)
        throw new Error(
          `result: not a ${resultName(method)} (${resultSchemaSource(waiting.call.protocolVersion)}): ${problems.join('; ')}`,
        );
      resolution = { action: 'resume', result: edits.result as Record<string, unknown> };
    }
    this.take(id, true);
    waiting.settle(resolution);
  }

  /** Answers a paused call with a JSON-RPC error (-32006). */
  fail(id: string, message?: string): void {
    const waiting = this.take(id, true);
    waiting.settle({ action: 'fail', message });
  }

  /** Lets every paused call go on unchanged (the proxy is stopping). */
  releaseAll(): void {
    for (const id of [...this.waiting.keys()]) this.take(id, true).settle({ action: 'resume' });
  }

  private take(id: string, remove: boolean): Waiting {
    const waiting = this.waiting.get(id);
    if (!waiting) throw new Error(`id: no call paused at "${id}" (resumed, failed or timed out already?)`);
    if (remove) {
      this.waiting.delete(id);
      this.changed();
    }
    return waiting;
  }

  /** Publishes the call and waits for resume, fail, the timeout (resumes unchanged), or its client going away. */
  async pause(
    call: Omit<PausedCall, 'id' | 'since' | 'timeoutAt'>,
    res?: Closable,
    exchange?: LiveExchange,
  ): Promise<Resolution> {
    // a held result may come back edited, and resume() checks it synchronously: its schemas load before it is held
    if (call.stage === 'response') resultCheck ??= await import('../../../../shared/insight/result-check.js');
    const id = `b${nextPause++}`;
    const since = Date.now();
    return new Promise<Resolution>((resolve) => {
      const done = (resolution: Resolution): void => {
        clearTimeout(timer);
        res?.off('close', gone);
        stopListening?.();
        resolve(resolution);
      };
      const leave = (resolution: Resolution): void => {
        if (!this.waiting.has(id)) return;
        this.waiting.delete(id);
        this.changed();
        done(resolution);
      };
      const holdMs = this.timeoutMs;
      const timer = setTimeout(() => {
        // unchanged, yet held: the row says why the call took the whole hold
        if (this.waiting.has(id))
          exchange?.timeline.flags.push(
            `held at a breakpoint for ${holdMs / 1000} s: resumed unchanged at the hold's end`,
          );
        leave({ action: 'resume' });
      }, holdMs);
      timer.unref();
      // the client went away, or cancelled the call: nothing to wait for, released at once
      const gone = (): void => leave({ action: 'abandoned', by: 'gone' });
      res?.once('close', gone);
      const stopListening = exchange?.whenCancelled(() => leave({ action: 'abandoned', by: 'cancelled' }));
      this.waiting.set(id, { call: { ...call, id, since, timeoutAt: since + holdMs }, settle: done });
      this.changed();
    });
  }

  private changed(): void {
    this.events.emit('change');
  }
}
