import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, isRequest, type JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import { HttpError, reasonOf, RewindError, timeoutOf, upstreamError, UpstreamUnavailableError } from '../../errors.js';
import { MAX_BODY_BYTES } from '../../http/body.js';
import { sendJson, sseEvent } from '../../http/sse.js';
import { header } from '../../http/url.js';
import { copyEndToEndHeaders } from '../../http/headers.js';
import type { Stage, Upstream } from '../core/contract.js';
import { watchProgress } from './progress-watch.js';

/**
 * A POST that no hook wants to see, in an endpoint that hands the upstream's sessions through: passed to the upstream
 * unparsed, the answer piped back — what a bare HTTP proxy does (the upstream judges the request). The body's bytes
 * are parsed only should the upstream fail, to answer each request with a JSON-RPC error as the relay does.
 */
export function pipePost(stage: Stage, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const upstream = stage.upstream!;
  const headers = copyEndToEndHeaders(req.headers);
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk); // beyond: drained, not kept
  });
  // small JSON-RPC bodies: one write upstream (headers and body together) costs less than piping
  req.once('end', () => {
    if (size > MAX_BODY_BYTES)
      return sendJson(res, 413, new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`).toResponse(null), {
        connection: 'close',
      });
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    upstream
      .request({ method: 'POST', headers, body, sessionId: header(req, 'mcp-session-id'), ownHeaders: true })
      .then(
        (upRes) => relayAnswer(upstream, upRes, res, chunks),
        (error: unknown) => upstreamDown(stage, res, requestIds(chunks), error),
      )
      .catch((error: Error) => {
        stage.log(`internal error relaying a POST: ${error.stack ?? error.message}`, 'warn');
        if (!res.headersSent)
          sendJson(res, 500, new RewindError('mcp-rewind: internal error', ErrorCode.InternalError).toResponse(null));
        else res.destroy();
      });
  });
  return Promise.resolve();
}

/**
 * The upstream's answer piped back; a stream that breaks before its end gets an error event per request (saying which
 * limit cut it, when one did: progress in it restarts the per-call timeout).
 */
function relayAnswer(upstream: Upstream, upRes: IncomingMessage, res: ServerResponse, chunks: Buffer[]): void {
  const out = copyEndToEndHeaders(upRes.headers);
  if (upRes.headers['content-length']) out['content-length'] = upRes.headers['content-length'];
  res.writeHead(upRes.statusCode ?? 502, out);
  upRes.pipe(res);
  watchProgress(upstream, upRes);
  upRes.once('close', () => {
    if (upRes.complete || res.writableEnded) return;
    if (!upRes.headers['content-type']?.includes('text/event-stream')) return void res.destroy();
    res.write('\n\n'); // we may be inside an event: a blank line closes it
    const why =
      timeoutOf(upstream.cutBy?.(upRes))?.message ?? 'mcp-rewind: upstream closed the stream before answering';
    for (const id of requestIds(chunks)) res.write(sseEvent(new UpstreamUnavailableError(why).toResponse(id)));
    res.end();
  });
  upRes.on('error', () => {}); // reported by 'close' above
  res.once('close', () => {
    if (!upRes.complete) upRes.destroy();
  });
}

/** The ids of the requests in a JSON-RPC body (none when it is not JSON). */
function requestIds(chunks: Buffer[]): Array<string | number> {
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcMessage | JsonRpcMessage[];
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter((m) => typeof m === 'object' && m !== null && isRequest(m))
      .map((m) => (m as { id: string | number }).id);
  } catch {
    return [];
  }
}

function upstreamDown(stage: Stage, res: ServerResponse, ids: Array<string | number>, error: unknown): void {
  const reason = reasonOf(error);
  const where = stage.upstream?.displayUrl;
  stage.log(`upstream ${where} unavailable (${reason}): ${ids.length} request(s) answered with an error`, 'warn');
  if (ids.length === 0)
    return sendJson(res, 502, upstreamError(error, `mcp-rewind: upstream unavailable: ${reason}`).toResponse(null));
  const answers = ids.map((id) =>
    upstreamError(error, `mcp-rewind: upstream ${where} unavailable: ${reason}`).toResponse(id),
  );
  sendJson(res, 200, answers.length === 1 ? answers[0] : answers);
}

/**
 * A POST the proxy would refuse itself (not JSON-RPC, an invalid id, unparsable): passed to the upstream as it is,
 * so the server judges it as it would without the proxy. The answer is relayed unchanged and handed to `onAnswer`
 * (the recorder files the server's refusal, for replay to refuse the same way).
 */
export async function passRaw(
  stage: Stage,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  sessionId: string | null | undefined,
  onAnswer: (status: number, body: string) => void,
): Promise<void> {
  let upRes: IncomingMessage;
  try {
    upRes = await stage.upstream!.request({
      method: 'POST',
      headers: copyEndToEndHeaders(req.headers),
      body,
      sessionId,
    });
  } catch (error) {
    return upstreamDown(stage, res, [], error);
  }
  const chunks: Buffer[] = [];
  upRes.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve) => {
    upRes.once('end', resolve);
    upRes.once('error', () => resolve());
  });
  const text = Buffer.concat(chunks);
  const out = copyEndToEndHeaders(upRes.headers);
  out['content-length'] = String(text.length);
  res.writeHead(upRes.statusCode ?? 502, out).end(text);
  onAnswer(upRes.statusCode ?? 502, text.toString('utf8'));
}
