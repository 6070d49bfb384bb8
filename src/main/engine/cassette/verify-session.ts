import type { JsonRpcMessage, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { ResponseTap } from '../http/response-tap.js';
import { HttpUpstream } from '../upstream/http-upstream.js';

/** verify's own MCP session on the live server: one request at a time, server→client requests answered. */
export interface LiveSession {
  /** the live server's initialize result */
  readonly initializeResult: Record<string, unknown>;
  /**
   * Sends a request and resolves with its answer. A server→client request met on the way gets the client's reply
   * recorded in `recordedStream` for the same method (in order), else a JSON-RPC error; a ping gets `{}`.
   */
  send(method: string, params: Record<string, unknown> | undefined, recordedStream?: ReadonlyArray<Record<string, unknown>>): Promise<JsonRpcResponse>;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'mcp-rewind-verify', version: '1' },
};

/** The recorded client replies to server→client requests of `method`, in order. */
function recordedReplies(stream: ReadonlyArray<Record<string, unknown>>, method: string): Array<Record<string, unknown>> {
  const replies: Array<Record<string, unknown>> = [];
  stream.forEach((m, i) => {
    if (m.method !== method || !('id' in m)) return;
    const reply = stream.slice(i + 1).find((r) => !('method' in r) && r.id === m.id);
    if (reply) replies.push(reply);
  });
  return replies;
}

/** Opens a session over Streamable HTTP (initialize + notifications/initialized). Throws when the server does not answer. */
export async function openHttpSession(url: string, options: { initializeParams?: Record<string, unknown>; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<LiveSession> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const upstream = new HttpUpstream(url, options.headers ?? {}, timeoutMs);
  let init: Awaited<ReturnType<HttpUpstream['initialize']>>;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    init = await Promise.race([upstream.initialize(options.initializeParams ?? DEFAULT_CLIENT_PARAMS, 'mcp-rewind-verify-init'), timeout]);
  } catch (error) {
    upstream.close();
    const e = error as NodeJS.ErrnoException;
    throw new Error(e.code && !e.message.includes(e.code) ? `${e.code} ${e.message}` : e.message, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  const { sessionId, protocolVersion } = init;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': protocolVersion };
  let nextId = 1;

  const post = async (message: JsonRpcMessage, onMessage?: (m: JsonRpcMessage) => void): Promise<{ status: number; done: Promise<void> }> => {
    const res = await upstream.request('POST', headers, Buffer.from(JSON.stringify(message)), sessionId);
    if (!onMessage) {
      res.resume();
      return { status: res.statusCode ?? 0, done: Promise.resolve() };
    }
    const tap = new ResponseTap(res.headers['content-type'], onMessage, false);
    const done = new Promise<void>((resolve, reject) => {
      res.on('data', (chunk: Buffer) => tap.push(chunk));
      res.on('end', () => {
        tap.end();
        resolve();
      });
      res.on('error', reject);
      res.on('close', () => (res.complete ? resolve() : reject(new Error('the answer was cut off'))));
    });
    return { status: res.statusCode ?? 0, done };
  };

  return {
    initializeResult: init.result,
    async send(method, params, recordedStream = []) {
      const id = `mcp-rewind-verify-${nextId++}`;
      const used = new Map<string, number>();
      let answer: JsonRpcResponse | undefined;
      const replies: Array<Promise<unknown>> = [];
      const onMessage = (m: JsonRpcMessage): void => {
        if (!('method' in m)) {
          if (m.id === id) answer = m;
          return;
        }
        if (!('id' in m)) return; // a notification: nothing to answer
        const k = used.get(m.method) ?? 0;
        used.set(m.method, k + 1);
        const recorded = recordedReplies(recordedStream, m.method)[k];
        const reply: JsonRpcMessage =
          m.method === 'ping'
            ? { jsonrpc: '2.0', id: m.id, result: {} }
            : recorded && 'result' in recorded
              ? { jsonrpc: '2.0', id: m.id, result: recorded.result as Record<string, unknown> }
              : recorded && 'error' in recorded
                ? { jsonrpc: '2.0', id: m.id, error: recorded.error as { code: number; message: string } }
                : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `mcp-rewind verify has no recorded reply to ${m.method}` } };
        replies.push(post(reply).catch(() => undefined));
      };
      const { status, done } = await post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, onMessage);
      await done;
      await Promise.all(replies);
      if (answer) return answer;
      throw new Error(status >= 200 && status < 300 ? 'no answer to the request' : `HTTP ${status}`);
    },
    async close() {
      if (sessionId) await upstream.endSession(sessionId, protocolVersion);
      upstream.close();
    },
  };
}
