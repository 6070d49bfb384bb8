/**
 * Which transport does the server at `--url` speak? Streamable HTTP, or legacy HTTP+SSE (2024-11-05) — found the way
 * the SDK's fallback client does: POST an initialize; a 2xx is Streamable HTTP; a 4xx (400/404/405 in 2025-11-25,
 * any 4xx before) means "try the old way": GET with Accept: text/event-stream and wait for an `endpoint` event.
 *
 * The probes leave nothing behind: a Streamable HTTP session opened by the initialize is ended (DELETE), the
 * legacy SSE stream is closed as soon as its endpoint event arrived.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createParser } from 'eventsource-parser';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

export type UpstreamKind = 'streamable-http' | 'sse';

export interface DetectOptions {
  /** sent on every probe (e.g. Authorization) */
  headers?: Record<string, string>;
  /** for the initialize POST; default 10 s */
  timeoutMs?: number;
  /** how long the GET may take to send its endpoint event; default 5 s */
  sseTimeoutMs?: number;
}

function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): { response: Promise<IncomingMessage>; abort(): void } {
  const transport = url.protocol === 'https:' ? https : http;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  const out = { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) };
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const req = transport.request(url, { method, headers: out, signal: controller.signal, agent: false }, (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(controller.signal.aborted && controller.signal.reason instanceof Error ? controller.signal.reason : error);
    });
    req.end(body);
  });
  return { response, abort: () => controller.abort() };
}

/** Resolves with a description of what the GET answered when it is not a legacy SSE endpoint, or null when it is. */
async function legacyEndpointEvent(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<string | null> {
  const get = send(url, 'GET', { ...headers, accept: 'text/event-stream' }, undefined, timeoutMs);
  let res: IncomingMessage;
  try {
    res = await get.response;
  } catch (error) {
    return `failed (${(error as Error).message})`;
  }
  const contentType = res.headers['content-type'] ?? '';
  res.on('error', () => {});
  if (res.statusCode !== 200 || !contentType.includes('text/event-stream')) {
    res.destroy();
    return `answered HTTP ${res.statusCode}${contentType ? ` (${contentType.split(';')[0]})` : ''}`;
  }
  return new Promise<string | null>((resolve) => {
    let done = false;
    const finish = (outcome: string | null): void => {
      if (done) return;
      done = true; // before destroy(), which emits 'aborted' synchronously
      clearTimeout(timer);
      resolve(outcome);
      res.destroy();
    };
    const timer = setTimeout(() => finish(`sent no endpoint event within ${timeoutMs / 1000} s`), timeoutMs);
    const parser = createParser({ onEvent: (event) => event.event === 'endpoint' && finish(null) });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.feed(chunk));
    res.on('end', () => finish('closed the stream without an endpoint event'));
    res.on('aborted', () => finish('broke the stream before an endpoint event'));
  });
}

/**
 * Detects the upstream's transport. Throws with a one-line reason when the URL is neither (network errors keep
 * their `code`, e.g. ECONNREFUSED).
 */
export async function detectUpstreamKind(target: string | URL, options: DetectOptions = {}): Promise<UpstreamKind> {
  const url = new URL(target);
  const headers = options.headers ?? {};
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 'mcp-rewind-detect',
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcp-rewind-detect', version: '1' } },
  });
  const post = send(url, 'POST', { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, initialize, options.timeoutMs ?? 10_000);
  const res = await post.response;
  const status = res.statusCode ?? 0;
  res.on('error', () => {});
  res.destroy(); // the answer itself is the probe's business (probeUpstream); only the status matters here
  if (status >= 200 && status < 300) {
    const sessionId = res.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const version = { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
      const del = send(url, 'DELETE', { ...headers, ...version, 'mcp-session-id': sessionId }, undefined, 5_000);
      await del.response.then((r) => r.resume()).catch(() => {});
    }
    return 'streamable-http';
  }
  if (status >= 400 && status < 500) {
    const problem = await legacyEndpointEvent(url, headers, options.sseTimeoutMs ?? 5_000);
    if (problem === null) return 'sse';
    throw new Error(`POST initialize answered HTTP ${status} and GET (legacy HTTP+SSE) ${problem}: neither Streamable HTTP nor HTTP+SSE`);
  }
  throw new Error(`POST initialize answered HTTP ${status}`);
}
