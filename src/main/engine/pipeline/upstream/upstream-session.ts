import { UpstreamUnavailableError } from '../../errors.js';
import type { Stage } from '../core/contract.js';
import { upstreamSessionOpened } from './server-stream.js';
import type { Session } from '../core/session.js';

/**
 * Opens (or reopens) the upstream session behind a client session the proxy owns, with the client's own
 * initialize params so the server sees the client's real capabilities. Concurrent callers share one handshake.
 * (The client's own initialize is relayed like any request; this is for sessions whose initialize came from the
 * cassette, whose upstream restarted, or whose upstream was switched.)
 */
export function openUpstreamSession(
  stage: Stage,
  session: Session,
  protocolVersion?: string,
  reopen = false,
): Promise<Record<string, unknown>> {
  if (reopen) session.upstreamId = undefined;
  if (session.connecting) return session.connecting;
  const connecting = (async () => {
    const upstream = stage.upstream;
    if (!upstream) throw new UpstreamUnavailableError('no upstream server');
    const params = session.initParams ?? {
      protocolVersion: protocolVersion ?? '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'mcp-rewind', version: '0' },
    };
    const { sessionId, result, protocolVersion: negotiated } = await upstream.initialize(params);
    session.upstreamId = sessionId ?? null;
    session.protocolVersion ??= negotiated;
    await upstreamSessionOpened(stage, session);
    stage.log(
      `upstream session ${sessionId ?? '(stateless)'} ${reopen ? 're' : ''}opened for client session ${session.id ?? '(none)'}`,
      'info',
    );
    return result;
  })().finally(() => {
    session.connecting = undefined;
  });
  session.connecting = connecting;
  return connecting;
}
