import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isRequest, isResponse,
  type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse,
} from '../../../shared/jsonrpc.js';
import type { Mode } from '../../../shared/modes.js';
import { sendMessages } from '../http/sse.js';
import type { HttpUpstream } from '../upstream/http-upstream.js';
import { LiveExchange } from './exchange.js';
import { answerUpstreamDown, relayPost, relayStream } from './relay.js';
import { keyFor } from '../cassette/keys.js';
import type { Recorder } from './recorder.js';
import type { Replayer } from './replayer.js';
import { SessionRegistry, type Session } from './session.js';

export interface EndpointContext {
  mode: Mode;
  upstream?: HttpUpstream;
  replayer?: Replayer;
  recorder?: Recorder;
  /** a finished exchange (turned into an ExchangeEvent only when someone listens) */
  emit: (exchange: LiveExchange) => void;
  /** is anyone watching exchanges? If not, and nothing is recorded, live traffic is piped without parsing */
  observed: () => boolean;
  /** operational detail (verbose) */
  log: (line: string) => void;
  /** something the user should see even without --verbose */
  warn: (line: string) => void;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The MCP endpoint (Streamable HTTP) in front of the upstream and/or the cassette, for one proxy. */
export class McpEndpoint {
  readonly sessions = new SessionRegistry();

  constructor(private readonly ctx: EndpointContext) {}

  async post(req: IncomingMessage, res: ServerResponse, body: Buffer, parsed: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const requests = messages.filter(isRequest);
    const init = requests.find((r) => r.method === 'initialize');
    const { mode } = this.ctx;
    const sessionHeader = header(req, 'mcp-session-id');
    const session = init ? undefined : this.sessions.get(sessionHeader, mode === 'hybrid' ? undefined : (sessionHeader ?? null));
    if (session) this.noteReplies(session, messages);

    if (mode === 'replay') return this.answerFromCassette(req, res, parsed, requests, session, init);
    if (mode === 'hybrid') {
      if (requests.length > 0 && requests.every((r) => this.ctx.replayer!.has(keyFor(r)))) {
        return this.answerFromCassette(req, res, parsed, requests, session, init);
      }
      if (session && session.upstreamId === undefined) {
        if (requests.length === 0) return void res.writeHead(202).end(); // nothing upstream to tell yet
        try {
          await this.connectUpstream(session, header(req, 'mcp-protocol-version'));
        } catch (error) {
          return answerUpstreamDown(this.ctx, res, requests, session, error);
        }
      }
    }
    const exchanges = requests.map((r) => new LiveExchange(r, session?.id));
    await relayPost(this.ctx, this.sessions, { req, res, body, parsed, exchanges, session, init });
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = this.sessions.get(header(req, 'mcp-session-id'), this.ctx.mode === 'hybrid' ? undefined : (header(req, 'mcp-session-id') ?? null));
    if (this.ctx.mode === 'replay' || session.upstreamId === undefined) {
      // no live server behind this session: no server-initiated stream (clients treat 405 as "not offered")
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    await relayStream(this.ctx, req, res, 'GET', session);
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = header(req, 'mcp-session-id');
    const session = this.sessions.get(id, this.ctx.mode === 'hybrid' ? undefined : (id ?? null));
    if (id) this.sessions.delete(id);
    const ownsId = session.upstreamId !== id; // the proxy issued this id itself (replay / hybrid)
    if (this.ctx.mode === 'replay' || ownsId) {
      if (session.upstreamId) void this.ctx.upstream?.endSession(session.upstreamId, session.protocolVersion);
      res.writeHead(200).end();
      return;
    }
    await relayStream(this.ctx, req, res, 'DELETE', session);
  }

  private peekSession(): Session {
    return this.sessions.get(undefined, null);
  }

  /** Client replies to server→client requests become part of the exchange that caused them. */
  private noteReplies(session: Session, messages: JsonRpcMessage[]): void {
    if (session.awaitingReplies.size === 0) return;
    for (const m of messages) {
      if (!isResponse(m) || m.id === null) continue;
      const exchange = session.awaitingReplies.get(m.id);
      if (!exchange) continue;
      exchange.stream.push(m);
      session.awaitingReplies.delete(m.id);
    }
  }

  private answerFromCassette(req: IncomingMessage, res: ServerResponse, parsed: JsonRpcMessage | JsonRpcMessage[], requests: JsonRpcRequest[], existing: Session | undefined, init: JsonRpcRequest | undefined): void {
    if (requests.length === 0) return void res.writeHead(202).end(); // notifications and replies need no answer
    let session = existing;
    const headers: Record<string, string> = {};
    if (init) {
      session = this.sessions.create(undefined);
      session.initParams = init.params;
      headers['mcp-session-id'] = session.id as string;
    }
    const answers: JsonRpcResponse[] = requests.map((request) => {
      const exchange = new LiveExchange(request, session?.id);
      exchange.source = 'cache';
      const entry = this.ctx.replayer!.hit(exchange.key, session ?? this.peekSession());
      exchange.cassette = entry ? 'hit' : 'miss';
      exchange.response = entry ? { jsonrpc: '2.0', id: request.id, result: entry.result } : this.ctx.replayer!.miss(request, exchange.key);
      if (!entry) exchange.source = 'proxy';
      this.ctx.emit(exchange);
      return exchange.response;
    });
    if (init && session) session.protocolVersion = String((answers[0] as { result?: { protocolVersion?: string } }).result?.protocolVersion ?? '');
    sendMessages(res, header(req, 'accept'), Array.isArray(parsed) ? answers : answers[0], headers);
  }

  /** Hybrid: a miss on a session whose initialize came from the cassette needs an upstream session of its own. */
  private connectUpstream(session: Session, protocolVersion: string | undefined): Promise<void> {
    session.connecting ??= (async () => {
      const upstream = this.ctx.upstream!;
      const params = session.initParams ?? {
        protocolVersion: protocolVersion ?? '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'mcp-rewind', version: '0' },
      };
      const { sessionId, protocolVersion: negotiated } = await upstream.initialize(params);
      session.upstreamId = sessionId ?? null;
      session.protocolVersion ??= negotiated;
      this.ctx.log(`upstream session ${sessionId ?? '(stateless)'} opened for ${session.id ?? 'stateless client'}`);
    })().finally(() => {
      session.connecting = undefined;
    });
    return session.connecting;
  }
}
