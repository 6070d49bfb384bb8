import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { redactHeaders } from '../../redact.js';
import { upstreamError, UpstreamUnavailableError } from '../../errors.js';
import { sendJson } from '../../http/sse.js';
import { header } from '../../http/url.js';
import { copyEndToEndHeaders, downstreamHeaders } from '../../http/headers.js';
import type { Stage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { watchProgress } from './progress-watch.js';
import { answerUpstreamDown, brokenStream } from './relay-failures.js';
import { TappedRelay } from './relay-tapped.js';
import type { Session, SessionRegistry } from '../core/session.js';

export interface PostRelay {
  req: IncomingMessage;
  res: ServerResponse;
  /** what goes upstream: the client's body, or the part of it the proxy does not answer itself */
  body: Buffer;
  parsed: JsonRpcMessage | JsonRpcMessage[];
  /** the requests forwarded upstream */
  exchanges: LiveExchange[];
  /** the client's session; for an initialize: the proxy's new session (owned), or undefined (born from the answer) */
  session: Session | undefined;
  init: LiveExchange | undefined;
  /** answers the proxy made itself for other requests of the same POST (rules, cassette hits) */
  local?: JsonRpcResponse[];
  /** the session's upstream id went stale (upstream restarted): reconnect, so the request can be sent again */
  reconnect?: (session: Session) => Promise<void>;
}

/**
 * The upstream session a POST goes to: the session's; none for an initialize the proxy's own session makes; and for
 * an initialize of a mirrored session, the client's own `Mcp-Session-Id` if it sent one (a stale one is the server's
 * to refuse, as proxy-only and the server itself do: issue 21 item 3).
 */
function upstreamSessionOf(
  req: IncomingMessage,
  init: LiveExchange | undefined,
  owned: boolean,
  session: Session | undefined,
): string | null | undefined {
  if (!init) return session?.upstreamId;
  return owned ? undefined : header(req, 'mcp-session-id');
}

/**
 * Forwards one POST upstream and relays the answer — byte for byte (JSON or SSE) unless a hook holds an answer
 * (rules rewrite it, a breakpoint pauses it) or the proxy answered part of the POST itself — while reading the
 * messages out of it when a hook observes (relay-tapped.ts): streamed notifications and server→client requests join
 * their exchange, the final answer completes it and goes through the hooks (recorder, events).
 */
export async function relayPost(stage: Stage, sessions: SessionRegistry, relay: PostRelay): Promise<void> {
  const { req, res, exchanges, init } = relay;
  const local = relay.local ?? [];
  const owned = init !== undefined && relay.session !== undefined;
  const requestHeaders = copyEndToEndHeaders(req.headers);
  let upRes: IncomingMessage;
  try {
    upRes = await sendUpstream(stage, relay, requestHeaders, owned);
  } catch (error) {
    if (owned) sessions.delete(relay.session!.id as string);
    if (exchanges.length === 0)
      return sendJson(
        res,
        502,
        upstreamError(error, `mcp-rewind: upstream unavailable: ${(error as Error).message}`).toResponse(null),
      );
    return answerUpstreamDown(stage, res, exchanges, relay.session, error, local);
  }
  if (res.destroyed && exchanges.length > 0) {
    // the client went away while the upstream had not begun to answer: so does the upstream request
    upRes.destroy();
    for (const exchange of exchanges) exchange.delivery.clientGone = true;
    return brokenStream(stage, res, undefined, pendingOf(exchanges), relay.session);
  }
  const head = { status: upRes.statusCode ?? 0, headers: redactHeaders(upRes.headers) }; // for the timeline
  const authorization = authorizationScheme(req.headers.authorization);
  for (const e of exchanges) {
    e.timeline.firstByteMs = e.elapsed();
    e.timeline.http = head;
    e.timeline.authorization = authorization;
  }
  const live = sessionOf(sessions, relay, upRes);
  if (owned && (upRes.statusCode ?? 500) >= 300) sessions.delete(live.id as string); // refused: no session came of it
  const headers = downstreamHeaders(upRes, live.id, owned);
  // a hook holds an answer, or the proxy answered part of the POST: the relay goes message by message
  const rewriting = local.length > 0 || exchanges.some((e) => e.delivery.need === 'hold');
  const tapped = rewriting || init !== undefined || exchanges.some((e) => e.delivery.need !== 'none');
  if (!tapped || exchanges.length === 0) return pipeUntapped(stage, res, upRes, headers, exchanges, live);
  const post = { stage, sessions, req, res, upRes, parsed: relay.parsed, exchanges, init, live, owned };
  new TappedRelay({ ...post, requestHeaders, headers, local, rewriting }).start();
}

/** Sends the POST upstream; a session the upstream forgot (it restarted) is opened again and the POST sent once more. */
async function sendUpstream(
  stage: Stage,
  relay: PostRelay,
  headers: Record<string, string | string[]>,
  owned: boolean,
): Promise<IncomingMessage> {
  const { upstream } = stage;
  if (!upstream) throw new UpstreamUnavailableError('no upstream server');
  const { req, body, init, session, exchanges } = relay;
  for (const e of exchanges) e.timeline.sentUpstreamMs = e.elapsed();
  const sessionId = upstreamSessionOf(req, init, owned, session);
  const upRes = await upstream.request({ method: 'POST', headers, body, sessionId });
  if (upRes.statusCode !== 404 || !session || !relay.reconnect || !session.upstreamId) return upRes;
  if (session.upstreamId === session.id) return upRes;
  upRes.resume(); // the upstream forgot our session (restarted): open a new one and send again, once
  await relay.reconnect(session);
  return upstream.request({ method: 'POST', headers, body, sessionId: session.upstreamId });
}

/** The session the answer belongs to: the client's; for an initialize, the one its answer makes (or backs). */
function sessionOf(sessions: SessionRegistry, relay: PostRelay, upRes: IncomingMessage): Session {
  const { init } = relay;
  let session = relay.session;
  if (!init) return session as Session;
  const sid = upRes.headers['mcp-session-id'];
  const upstreamId = typeof sid === 'string' ? sid : null;
  if (session)
    session.upstreamId = upstreamId; // the proxy's own session, now backed by the upstream's
  else session = upstreamId ? sessions.adopt(upstreamId, upstreamId) : sessions.get(undefined, null);
  session.initParams = init.request.params;
  return session;
}

const pendingOf = (exchanges: LiveExchange[]): Map<unknown, LiveExchange> =>
  new Map(exchanges.map((e) => [e.request.id, e]));

/** Nobody needs the messages: the answer is piped as it comes, the cheapest faithful relay. */
function pipeUntapped(
  stage: Stage,
  res: ServerResponse,
  upRes: IncomingMessage,
  headers: Record<string, string | string[]>,
  exchanges: LiveExchange[],
  live: Session,
): void {
  const upstream = stage.upstream!;
  res.writeHead(upRes.statusCode ?? 502, headers);
  upRes.pipe(res);
  watchProgress(upstream, upRes);
  const broken = (error?: Error): void =>
    brokenStream(
      stage,
      res,
      upRes.headers['content-type'],
      pendingOf(exchanges),
      live,
      true,
      error ?? upstream.cutBy?.(upRes),
    );
  upRes.on('error', broken);
  upRes.on('aborted', () => broken());
  res.on('close', () => {
    if (upRes.complete) return;
    for (const exchange of exchanges) exchange.delivery.clientGone = true;
    upRes.destroy();
  });
}

/** The scheme of a client's own Authorization (`Bearer`), for Copy as curl's placeholder; never the credentials. */
function authorizationScheme(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const scheme = /^\s*([A-Za-z][A-Za-z0-9-]{0,30})\s+\S/.exec(value)?.[1]; // a bare token is not taken for one
  return scheme ?? 'Bearer';
}
