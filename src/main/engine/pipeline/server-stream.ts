import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNotification, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { sseEvent } from '../http/sse.js';
import { copyEndToEndHeaders } from '../upstream/headers.js';
import type { Stage } from './contract.js';
import { ResponseTap } from '../http/response-tap.js';
import type { Session } from './session.js';

/** Writes a message to every server stream the client holds; returns how many streams got it. */
export function pushToStreams(session: Session, message: JsonRpcMessage): number {
  for (const stream of session.streams) stream.write(sseEvent(message));
  return session.streams.size;
}

/**
 * A server stream (GET) that the proxy owns, so it can push its own notifications (tools/list_changed after a rule
 * change, replayed notifications) between the upstream's. The upstream's own stream, when a live upstream session
 * exists, is read event by event, shown to the hooks (the recorder files its notifications) and re-sent.
 */
export async function openOwnedStream(
  stage: Stage,
  req: IncomingMessage,
  res: ServerResponse,
  session: Session,
  withUpstream: boolean,
  /** the stream is open: what waited for one goes out on it (replayed notifications) */
  opened?: (res: ServerResponse) => void,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  session.streams.add(res);
  opened?.(res);
  const { upstream } = stage;
  let upRes: IncomingMessage | undefined;
  res.on('close', () => {
    session.streams.delete(res);
    upRes?.destroy();
  });
  if (!upstream || !withUpstream) return;
  try {
    const headers = copyEndToEndHeaders(req.headers);
    delete headers['last-event-id']; // event ids on this stream are not the upstream's
    upRes = await upstream.request({ method: 'GET', headers, sessionId: session.upstreamId });
  } catch {
    return; // the proxy's own stream stays open: rule notifications still reach the client
  }
  if (res.destroyed || upRes.statusCode !== 200) {
    upRes.resume();
    return;
  }
  const tap = new ResponseTap(
    upRes.headers['content-type'],
    (message) => {
      res.write(sseEvent(message));
      if (isNotification(message)) stage.hooks.serverMessage(message, session);
    },
    false,
  );
  upRes.on('data', (chunk: Buffer) => tap.push(chunk));
  upRes.on('error', () => {});
}
