import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { redactUrl } from '../redact.js';
import { collectMessages } from '../http/response-tap.js';
import type { PipedBody, Upstream, UpstreamRequest } from '../pipeline/core/contract.js';
import type { UpstreamTimeoutError } from '../errors.js';
import { CallDeadlines, type CallLimits, type Deadline } from './call-deadlines.js';
import type * as Challenge from './oauth/challenge.js';
import type { UpstreamAuth } from './oauth/challenge.js';

/** the sign-in policy (and the SDK's auth helpers) load with the first request to an upstream that has a sign-in */
let signInPolicy: typeof Challenge | undefined;
let loadingSignInPolicy: Promise<typeof Challenge> | undefined;

const PROTOCOL_VERSION_FALLBACK = '2025-03-26';

/**
 * The running limits of each answer in flight, until it closes; the limit that cut one stays known after (rare: a
 * WeakMap). A Map entry per request, not a property: an extra property on some IncomingMessages only would make
 * node:http's own accesses polymorphic, and a WeakMap entry per request costs the GC more.
 */
const running = new Map<IncomingMessage, Deadline>();
const cutAnswers = new WeakMap<IncomingMessage, UpstreamTimeoutError>();

/** The answer carries its call's limits until it closes (one shared listener: no closure per request). */
function timed(res: IncomingMessage, deadline: Deadline): void {
  running.set(res, deadline);
  res.on('close', clearDeadline);
}

function clearDeadline(this: IncomingMessage): void {
  const deadline = running.get(this);
  if (!deadline) return;
  running.delete(this);
  deadline.clear();
  if (deadline.fired) cutAnswers.set(this, deadline.fired);
}

/**
 * An upstream answered in process (a bridged stdio or legacy SSE server, transports/upstream-bridge.ts): the request
 * as it would go on the wire, the answer as node:http would give it — without a socket in between.
 */
export type LocalDispatch = (request: {
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}) => Promise<IncomingMessage>;

/**
 * One upstream MCP server reached over Streamable HTTP. Requests are relayed at the HTTP level, byte for byte,
 * so status codes, SSE event ids, `retry` fields and session headers reach the client as the server sent them.
 */
export class HttpUpstream implements Upstream {
  readonly url: URL;
  /** the URL without credentials, for logs, errors and the cassette */
  readonly displayUrl: string;
  /** request options of `url`, computed once (the hot path must not re-parse it) */
  private readonly target: http.RequestOptions;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  /** the running limits of the calls in flight (none without limits) */
  private readonly deadlines?: CallDeadlines;

  /**
   * @param headers sent on every request, over the client's (the upstream's own credentials in a `serve` session)
   * @param limits a POST (one call and its stream) is aborted after `callMs` without an answer or progress, or after
   *   `totalMs` in all (a number: `callMs`)
   * @param auth the upstream's OAuth sign-in (oauth/sign-in.ts): its token goes on every request to `url`, and a 401
   *   or a 403 insufficient_scope is cured by it (refresh, sign-in, step-up) and sent once more
   * @param dispatch answers the requests to `url` in process (a bridge): no HTTP between the pipeline and it
   */
  constructor(
    url: string | URL,
    private readonly headers: Record<string, string> = {},
    limits?: number | CallLimits,
    private readonly auth?: UpstreamAuth,
    private readonly dispatch?: LocalDispatch,
  ) {
    const given = typeof limits === 'number' ? { callMs: limits } : limits;
    if (given?.callMs || given?.totalMs) this.deadlines = new CallDeadlines(given);
    this.url = new URL(url);
    this.target = urlToOptions(this.url);
    this.displayUrl = redactUrl(this.url);
    const secure = this.url.protocol === 'https:';
    this.transport = secure ? https : http;
    this.agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 256 });
  }

  /**
   * Sends a request upstream; resolves with the response head as soon as it arrives (the body streams on). `body` is
   * a buffer, or the client's request piped through as it arrives (the caller keeps its chunks: they are sent again,
   * once, should a kept-alive socket turn out closed).
   */
  request({
    method,
    headers,
    body,
    sessionId,
    target = this.url,
    ownHeaders = false,
  }: UpstreamRequest): Promise<IncomingMessage> {
    const out: Record<string, string | string[]> = ownHeaders ? headers : { ...headers };
    for (const name in this.headers) out[name.toLowerCase()] = this.headers[name];
    if (sessionId) out['mcp-session-id'] = sessionId;
    else if (out['mcp-session-id'] !== undefined) delete out['mcp-session-id'];
    if (body instanceof Buffer) out['content-length'] = String(body.length);
    if (!this.auth || target !== this.url) return this.send(method, out, body, target);
    // `out` is ours (a copy, or headers the caller handed over) and node:http reads it when the request is made, so
    // each send sets its Authorization in place
    const signed = (
      authorization: string | undefined,
      payload: Buffer | PipedBody | undefined,
    ): Promise<IncomingMessage> => {
      if (authorization) out.authorization = authorization;
      else if (out.authorization !== undefined) delete out.authorization;
      return this.send(method, out, payload, target);
    };
    let sent = false;
    const signIn = ({ challengeOf, withSignIn }: typeof Challenge): Promise<IncomingMessage> =>
      withSignIn(
        this.auth!,
        {
          clientAuthorization: typeof out.authorization === 'string' ? out.authorization : undefined,
          // a piped body goes once as it arrives; a second send (after a sign-in) sends the bytes it collected
          send: (authorization) => {
            if (sent) return collected(body).then((bytes) => signed(authorization, bytes));
            sent = true;
            return signed(authorization, body);
          },
          challenge: (res) => challengeOf(res.statusCode ?? 0, res.headers['www-authenticate']),
          discard: (res) => void res.resume(),
        },
        method !== 'DELETE', // ending a session (a client leaving, the proxy stopping) never starts a sign-in
        this.displayUrl,
      );
    if (signInPolicy) return signIn(signInPolicy);
    return (loadingSignInPolicy ??= import('./oauth/challenge.js').then((policy) => (signInPolicy = policy))).then(
      signIn,
    );
  }

  /** One request as it goes on the wire: resolves with the answer's head (the body streams on). */
  private send(
    method: string,
    out: Record<string, string | string[]>,
    body: Buffer | PipedBody | undefined,
    target: URL,
  ): Promise<IncomingMessage> {
    if (this.dispatch && target === this.url) return this.sendLocal(this.dispatch, method, out, body);
    const where = target === this.url ? this.target : urlToOptions(target);
    const send = (payload: Buffer | PipedBody | undefined, retried: boolean): Promise<IncomingMessage> =>
      new Promise((resolve, reject) => {
        // options built field by field: this runs for every relayed request
        const options: http.RequestOptions = {
          protocol: where.protocol,
          hostname: where.hostname,
          port: where.port,
          path: where.path,
          method,
          headers: out,
          agent: this.agent,
        };
        if (where.auth) options.auth = where.auth;
        const req = this.transport.request(options, (res) => {
          if (deadline) timed(res, deadline);
          resolve(res);
        });
        // a 2026-07-28 subscriptions/listen stream is open for as long as the client wants it: no call to time out
        const deadline =
          method === 'POST' && out['mcp-method'] !== 'subscriptions/listen' ? this.deadlines?.start(req) : undefined;
        const piped = payload !== undefined && !(payload instanceof Buffer) ? (payload as PipedBody) : undefined;
        req.on('error', (error: NodeJS.ErrnoException) => {
          deadline?.clear();
          // a kept-alive socket the server closed meanwhile (it restarted): Node's documented retry-once pattern
          if (!retried && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
            if (!piped) return resolve(send(payload, true));
            const again = (): void => resolve(send(Buffer.concat(piped.chunks), true));
            if (piped.stream.readableEnded) again();
            else piped.stream.once('end', again).resume();
          } else reject(error);
        });
        if (piped) piped.stream.pipe(req);
        else req.end(payload as Buffer | undefined);
      });
    return send(body, false);
  }

  /** One request answered in process; its limits run from when its answer began, and cut it as a socket would. */
  private async sendLocal(
    dispatch: LocalDispatch,
    method: string,
    out: Record<string, string | string[]>,
    body: Buffer | PipedBody | undefined,
  ): Promise<IncomingMessage> {
    const res = await dispatch({ method, headers: out, body: await collected(body) });
    const deadline =
      method === 'POST' && out['mcp-method'] !== 'subscriptions/listen' ? this.deadlines?.start(res) : undefined;
    if (deadline) timed(res, deadline);
    return res;
  }

  /** The limit that cut this answer short, if one did (the stream then ends as any broken stream does). */
  cutBy(res: IncomingMessage): UpstreamTimeoutError | undefined {
    return running.get(res)?.fired ?? cutAnswers.get(res);
  }

  /** A progress notification of this answer went by: its per-call timeout starts over. */
  progressed(res: IncomingMessage): void {
    running.get(res)?.restart();
  }

  /** Sends one JSON-RPC message and reads every message of the answer (JSON or SSE). */
  private async call(
    message: JsonRpcMessage,
    sessionId: string | null | undefined,
    protocolVersion?: string,
  ): Promise<{ status: number; sessionId?: string; messages: JsonRpcMessage[] }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    const res = await this.request({ method: 'POST', headers, body: Buffer.from(JSON.stringify(message)), sessionId });
    const messages = await collectMessages(res);
    const sid = res.headers['mcp-session-id'];
    return { status: res.statusCode ?? 0, sessionId: typeof sid === 'string' ? sid : undefined, messages };
  }

  /** An initialize handshake with the client's own params, for an upstream session the proxy owns (hybrid, restarts). */
  async initialize(
    params: Record<string, unknown>,
    requestId: string | number = 'mcp-rewind-init',
  ): Promise<{ sessionId?: string; result: Record<string, unknown>; protocolVersion: string }> {
    const { status, sessionId, messages } = await this.call(
      { jsonrpc: '2.0', id: requestId, method: 'initialize', params },
      undefined,
    );
    const answer = messages.find((m): m is JsonRpcResponse => !('method' in m) && m.id === requestId);
    if (!answer)
      throw new Error(status >= 200 && status < 300 ? 'no initialize result in the answer' : `HTTP ${status}`);
    if ('error' in answer) throw new Error(`initialize failed: ${answer.error.message} (${answer.error.code})`);
    const protocolVersion =
      typeof answer.result.protocolVersion === 'string' ? answer.result.protocolVersion : PROTOCOL_VERSION_FALLBACK;
    const initialized = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const ack = await this.request({
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': protocolVersion,
      },
      body: initialized,
      sessionId,
    });
    ack.resume();
    return { sessionId, result: answer.result, protocolVersion };
  }

  /** Ends an upstream session (DELETE); errors are irrelevant to the caller. */
  async endSession(sessionId: string, protocolVersion?: string): Promise<void> {
    const headers: Record<string, string> = protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {};
    const res = await this.request({ method: 'DELETE', headers, sessionId }).catch(() => undefined);
    res?.resume();
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A body as bytes: a piped one once it has all arrived. */
async function collected(body: Buffer | PipedBody | undefined): Promise<Buffer | undefined> {
  if (body === undefined || body instanceof Buffer) return body;
  const { stream, chunks } = body as PipedBody;
  if (!stream.readableEnded)
    await new Promise((resolve) => stream.once('end', resolve).once('error', resolve).resume());
  return Buffer.concat(chunks);
}

function urlToOptions(url: URL): http.RequestOptions {
  return {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || undefined,
    path: url.pathname + url.search,
    auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
  };
}
