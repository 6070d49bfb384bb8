import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNotification, isRequest, type JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import { sseEvent } from '../../http/sse.js';
import { copyEndToEndHeaders } from '../../http/headers.js';
import type { Stage, UpstreamJoin } from '../core/contract.js';
import { ResponseTap } from '../../http/response-tap.js';
import type { Session } from '../core/session.js';

/** Writes a message to every server stream the client holds; returns how many streams got it. */
export function pushToStreams(session: Session, message: JsonRpcMessage): number {
  for (const stream of session.streams) stream.write(sseEvent(message));
  return session.streams.size;
}

/** Owned streams waiting for their session's upstream session (hybrid): the request headers to open its GET with. */
const waiting = new WeakMap<Session, Map<ServerResponse, IncomingMessage['headers']>>();

/**
 * A server stream (GET) that the proxy owns, so it can push its own notifications (tools/list_changed after a rule
 * change, replayed notifications) between the upstream's. The upstream's own stream, when a live upstream session
 * exists (`now`) or once the proxy opens one (`later`, upstreamSessionOpened), is read event by event, shown to the
 * hooks (the recorder files its notifications and requests) and re-sent.
 */
export async function openOwnedStream(
  stage: Stage,
  req: IncomingMessage,
  res: ServerResponse,
  session: Session,
  withUpstream: UpstreamJoin,
  /** the stream is open: what waited for one goes out on it (replayed notifications) */
  opened?: (res: ServerResponse) => void,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  session.streams.add(res);
  opened?.(res);
  res.on('close', () => {
    session.streams.delete(res);
    waiting.get(session)?.delete(res);
  });
  if (withUpstream === 'now') return attachUpstream(stage, req.headers, res, session);
  if (withUpstream !== 'later') return;
  let streams = waiting.get(session);
  if (!streams) waiting.set(session, (streams = new Map()));
  streams.set(res, req.headers);
}

/**
 * The proxy opened the session's upstream session: the owned streams waiting for it get the upstream's GET stream —
 * open before the request that needed the session goes on, since a server drops (or only stores) what it sends
 * outside a request while no GET stream is open.
 */
export async function upstreamSessionOpened(stage: Stage, session: Session): Promise<void> {
  const streams = waiting.get(session);
  if (!streams) return;
  waiting.delete(session);
  const live = [...streams].filter(([res]) => !res.destroyed);
  await Promise.all(live.map(([res, headers]) => attachUpstream(stage, headers, res, session)));
}

/** Reads the upstream's GET stream into an owned one: each message re-sent, and shown to the hooks. */
async function attachUpstream(
  stage: Stage,
  reqHeaders: IncomingMessage['headers'],
  res: ServerResponse,
  session: Session,
): Promise<void> {
  const { upstream } = stage;
  if (!upstream) return;
  let upRes: IncomingMessage;
  try {
    const headers = copyEndToEndHeaders(reqHeaders);
    delete headers['last-event-id']; // event ids on this stream are not the upstream's
    upRes = await upstream.request({ method: 'GET', headers, sessionId: session.upstreamId });
  } catch {
    return; // the proxy's own stream stays open: rule notifications still reach the client
  }
  if (res.destroyed) return void upRes.destroy();
  res.on('close', () => upRes.destroy());
  if (upRes.statusCode !== 200) {
    upRes.resume();
    return;
  }
  const tap = new ResponseTap(
    upRes.headers['content-type'],
    (message) => {
      res.write(sseEvent(message));
      if (isNotification(message) || isRequest(message)) stage.hooks.serverMessage(message, session);
    },
    false,
  );
  upRes.on('data', (chunk: Buffer) => tap.push(chunk));
  upRes.on('error', () => {});
}
