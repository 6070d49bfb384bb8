import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, errorResponse, type JsonRpcRequest } from '../../../../shared/jsonrpc.js';
import type { NotStartedData } from '../../errors.js';
import { firstValue } from '../../http/url.js';
import type { Log } from '../../log.js';
import { ChildStdioTransport } from '../stdio-child.js';
import { emptyAnswer, jsonAnswer, type BridgeAnswer } from './answer.js';
import { describe, startWithin, upstreamTransport, type BridgeSpec } from './connect.js';
import {
  alreadyInitialized,
  isInitialize,
  readMessages,
  refusePost,
  sessionNotFound,
  sessionRequired,
} from './refusals.js';
import { BridgeSession } from './session.js';

/** One request to the bridge, as the pipeline makes it (or the bridge's HTTP endpoint receives it). */
export interface BridgeRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body?: Buffer;
}

/**
 * The bridge's sessions and what it answers: a POST initialize without a session starts one (a child spawned, or a
 * legacy SSE connection opened); every other request goes to its session by `Mcp-Session-Id`. Answers are made in
 * process (answer.ts): the pipeline reads them as it reads an answer over HTTP.
 */
export class BridgeSessions {
  /** every session not yet closed, initialized or still starting */
  readonly live = new Set<BridgeSession>();
  /** the last lines (up to 20) the stdio children wrote on stderr */
  readonly printed: string[] = [];
  private readonly byId = new Map<string, BridgeSession>();
  private closed = false;

  constructor(
    private readonly spec: BridgeSpec,
    private readonly log: Log,
  ) {}

  async request(request: BridgeRequest): Promise<BridgeAnswer> {
    const sessionId = firstValue(request.headers['mcp-session-id']);
    if (!sessionId) return this.initialize(request);
    const session = this.byId.get(sessionId);
    if (!session) return sessionNotFound();
    session.lastActive = Date.now();
    return this.counted(session, this.inSession(session, sessionId, request));
  }

  /** Process ids of the stdio children running. */
  pids(): number[] {
    return [...this.live]
      .map((s) => s.client)
      .filter((c): c is ChildStdioTransport => c instanceof ChildStdioTransport && c.running)
      .map((c) => c.pid as number);
  }

  /** Ends the sessions nobody used for `idleMs` (a stdio child each). */
  endIdle(idleMs: number): void {
    const now = Date.now();
    for (const session of this.live) {
      if (!session.id || session.closing || session.busy || now - session.lastActive < idleMs) continue;
      this.log(`upstream ${describe(this.spec)}: session idle for ${Math.round(idleMs / 1000)} s, ended`, 'info');
      void session.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.live].map((s) => s.close()));
  }

  private inSession(session: BridgeSession, sessionId: string, { method, headers, body }: BridgeRequest): BridgeAnswer {
    if (method === 'GET') return session.stream.open(firstValue(headers.accept) ?? '', sessionId);
    if (method === 'DELETE') {
      void session.close();
      return emptyAnswer(200);
    }
    if (method !== 'POST')
      return jsonAnswer(405, errorResponse(null, ErrorCode.InvalidRequest, 'Method not allowed.'), {
        allow: 'GET, POST, DELETE',
      });
    const refused = refusePost(headers, true);
    if (refused) return refused;
    const read = readMessages(body);
    if ('refused' in read) return read.refused;
    if (read.messages.some(isInitialize)) return alreadyInitialized();
    return session.post(read.messages);
  }

  /** A request without a session: only a POST holding one initialize, checked before a child is spawned for it. */
  private initialize({ method, headers, body }: BridgeRequest): Promise<BridgeAnswer> | BridgeAnswer {
    if (method !== 'POST') return sessionRequired(method === 'GET' || method === 'DELETE' ? 400 : 405);
    const refused = refusePost(headers, false);
    if (refused) return refused;
    const read = readMessages(body);
    if ('refused' in read) return read.refused;
    const [init] = read.messages;
    if (read.messages.length !== 1 || !isInitialize(init)) return sessionRequired();
    return this.open(init);
  }

  /** One MCP session: its own connection to the real server, started for this initialize, which it answers. */
  private async open(init: JsonRpcRequest): Promise<BridgeAnswer> {
    let label = describe(this.spec); // stdio: names the pid once started
    const client = upstreamTransport(this.spec, this.printed, this.log, () => label);
    const session = new BridgeSession(
      client,
      () => label,
      this.log,
      (ended) => {
        this.live.delete(ended);
        if (ended.id) this.byId.delete(ended.id);
      },
    );
    this.live.add(session);
    try {
      await startWithin(client, this.spec);
    } catch (error) {
      void session.close();
      return this.notStarted(init, label, (error as Error).message);
    }
    this.watch(session, () => label);
    if (client instanceof ChildStdioTransport && this.spec.kind === 'stdio') {
      label = `process ${client.pid} ("${this.spec.command}")`;
      this.log(`upstream ${label} started`, 'info');
    }
    if (this.closed) {
      await session.close();
      return jsonAnswer(503, errorResponse(init.id, ErrorCode.UpstreamUnavailable, 'mcp-rewind: shutting down'));
    }
    session.id = randomUUID();
    this.byId.set(session.id, session);
    // its idle time starts when initialize is answered, not when the child was spawned (a slow start is not idleness)
    return this.counted(session, session.post([init]));
  }

  private notStarted(init: JsonRpcRequest, label: string, why: string): BridgeAnswer {
    const reason =
      this.spec.kind === 'stdio'
        ? `could not start the upstream command "${this.spec.command}": ${why}`
        : `could not connect to upstream ${label}: ${why}`;
    this.log(reason, 'warn');
    const data: NotStartedData | undefined = this.spec.kind === 'stdio' ? { notStarted: why } : undefined;
    return jsonAnswer(200, errorResponse(init.id, ErrorCode.UpstreamUnavailable, `mcp-rewind: ${reason}`, data));
  }

  /** A child that exits (or a legacy SSE stream that breaks) ends its session; the next initialize starts anew. */
  private watch(session: BridgeSession, label: () => string): void {
    const { client } = session;
    const again = this.spec.kind === 'stdio' ? 'starts it again' : 'reconnects';
    client.onclose = () => {
      if (session.closing || this.closed) return;
      const exit = (client instanceof ChildStdioTransport ? client.exit : undefined) ?? 'closed the connection';
      this.log(`upstream ${label()} ${exit}; its session ends (the next initialize ${again})`, 'warn');
      void session.close(exit);
    };
    client.onerror = (error) => {
      if (session.closing || this.closed) return;
      // EventSource reconnects by itself — to a new legacy session the server never saw initialized: end ours
      if (this.spec.kind === 'sse' && error.message.startsWith('SSE error')) {
        this.log(`upstream ${label()}: SSE stream broken (${error.message}); its session ends`, 'warn');
        void session.close('broke the SSE stream');
        return;
      }
      this.log(`upstream ${label()}: transport error: ${error.message}`, 'warn');
    };
  }

  /** While an answer is being read the session is not idle; its idle time starts when the answer is done. */
  private counted(session: BridgeSession, answer: BridgeAnswer): BridgeAnswer {
    session.open++;
    answer.once('close', () => {
      session.open--;
      session.lastActive = Date.now();
    });
    return answer;
  }
}
