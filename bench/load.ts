/**
 * A small closed-loop load generator on node:http: `concurrency` keep-alive connections, each sending the next
 * request as soon as the previous answer is fully read. Counts completions and per-request latency
 * (performance.now(), from request start to the last body byte).
 */
import http from 'node:http';
import { PROTOCOL_VERSION } from './cassette-gen.js';

export interface LoadResult {
  completed: number;
  /** transport errors, non-200 answers, answers without a JSON-RPC result */
  errors: number;
  elapsedMs: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

type Headers = Record<string, string | number>;

/** A request with headers of its own (a 2026-07-28 request's standard headers), and the answer it expects. */
export interface Payload {
  body: Buffer;
  headers?: Headers;
  /** what the answer must hold: a JSON-RPC result (default) or error */
  expect?: 'result' | 'error';
}

/** One MCP client endpoint: its keep-alive agent (sockets stay warm between rounds) and its session headers. */
export class LoadClient {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly headers: Headers;

  /** `timeoutMs`: a request unanswered this long counts as an error (its socket is dropped); default: none */
  constructor(
    url: string,
    maxSockets: number,
    private readonly timeoutMs?: number,
  ) {
    this.url = new URL(url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
    this.headers = {
      host: this.url.host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    };
  }

  /** initialize + notifications/initialized; keeps the Mcp-Session-Id the server hands out, if any. */
  async handshake(): Promise<void> {
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'mcp-rewind-bench', version: '1' },
      },
    };
    const answer = await this.send(Buffer.from(JSON.stringify(init)));
    if (answer.status !== 200) throw new Error(`initialize at ${this.url.href}: HTTP ${answer.status}`);
    const sid = answer.sessionId;
    if (sid) this.headers['mcp-session-id'] = sid;
    await this.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
  }

  /**
   * Sends `bodies` round-robin for `durationMs` (or until `maxRequests`) over `concurrency` connections.
   * Requests in flight at the deadline are finished and counted (elapsed time includes them). `bodies` as a function
   * makes request #n (a stateful peer wants an id used once per session: bench/bridge.ts).
   */
  async run(
    bodies: Array<Buffer | Payload> | ((n: number) => Buffer),
    concurrency: number,
    durationMs: number,
    maxRequests = Infinity,
  ): Promise<LoadResult> {
    const latencies: number[] = [];
    let next = 0;
    let errors = 0;
    const t0 = performance.now();
    const deadline = t0 + durationMs;
    const worker = async (): Promise<void> => {
      while (performance.now() < deadline && next < maxRequests) {
        const body = typeof bodies === 'function' ? bodies(next++) : bodies[next++ % bodies.length];
        const start = performance.now();
        try {
          const { status, ok } = Buffer.isBuffer(body)
            ? await this.send(body)
            : await this.send((body as Payload).body, (body as Payload).headers, (body as Payload).expect);
          if (status === 200 && ok) latencies.push(performance.now() - start);
          else errors++;
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsedMs = performance.now() - t0;
    latencies.sort((a, b) => a - b);
    const pick = (q: number): number =>
      latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN;
    return {
      completed: latencies.length,
      errors,
      elapsedMs,
      rps: (latencies.length * 1000) / elapsedMs,
      p50Ms: pick(0.5),
      p99Ms: pick(0.99),
    };
  }

  close(): void {
    this.agent.destroy();
  }

  /** One POST with the session's headers; the answer's status, content type and whole body (peer-check.ts reads it). */
  answer(body: Buffer): Promise<{ status: number; contentType: string; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.setTimeout(this.timeoutMs ?? 10_000, () => req.destroy(new Error('no answer in time')));
      req.end(body);
    });
  }

  /** One POST; resolves once the whole answer body has been read. `ok`: the body holds a JSON-RPC result (or error). */
  private send(
    body: Buffer,
    extra?: Headers,
    expect: 'result' | 'error' = 'result',
  ): Promise<{ status: number; ok: boolean; sessionId?: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: 'POST',
          agent: this.agent,
          headers: extra
            ? { ...this.headers, ...extra, 'content-length': body.length }
            : { ...this.headers, 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const sid = res.headers['mcp-session-id'];
            const ok = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).includes(
              expect === 'result' ? '"result"' : '"error"',
            );
            resolve({ status: res.statusCode ?? 0, ok, sessionId: typeof sid === 'string' ? sid : undefined });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (this.timeoutMs) req.setTimeout(this.timeoutMs, () => req.destroy(new Error('no answer in time')));
      req.end(body);
    });
  }
}
