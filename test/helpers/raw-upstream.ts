/**
 * A raw node:http MCP server (stateless Streamable HTTP: initialize, tools/list and tools/call answered as JSON) whose
 * tools misbehave in time or in size, for the upstream-limit and large-answer tests:
 *
 *   hang        never sends a byte (the request stays open)
 *   garbage     200 text/event-stream and a line of non-JSON at once, then one every 500 ms, never an answer
 *   drip        200 text/event-stream and a valid answer's first byte at once, then a byte per 2 s
 *   drip_json   the same as application/json
 *   progress    SSE: a progress notification every second (the client's progress token) for `seconds` (default 5),
 *               then the answer "done"
 *   ok          answers "ok" at once
 *   big         answers a text of `mib` MiB (default 1) at once, as SSE (`json: true`: as application/json), written in
 *               1 MiB pieces; the text has quotes, backslashes and newlines, so the JSON escapes it
 *
 * Everything it holds open is closed by close().
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawUpstream {
  url: string;
  /** tools/call requests received, by tool name */
  calls: string[];
  close(): Promise<void>;
}

interface Call {
  id: unknown;
  method?: string;
  params?: {
    name?: string;
    arguments?: { seconds?: number; mib?: number; json?: boolean };
    _meta?: { progressToken?: unknown };
  };
}

export const RAW_TOOLS = ['hang', 'garbage', 'drip', 'drip_json', 'progress', 'ok', 'big'] as const;

const answer = (id: unknown, text: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const sseHead = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function every(res: ServerResponse, ms: number, tick: (n: number) => boolean | undefined): void {
  let n = 0;
  const timer = setInterval(() => {
    if (res.destroyed || !tick(n++)) clearInterval(timer);
  }, ms);
  res.once('close', () => clearInterval(timer));
}

/** the head and the first byte at once, then a byte per 2 s */
function drip(res: ServerResponse, body: string): void {
  res.write(body[0]);
  every(res, 2_000, (n) => {
    if (n + 1 >= body.length) return void res.end();
    res.write(body[n + 1]);
    return true;
  });
}

const TOOLS: Record<(typeof RAW_TOOLS)[number], (res: ServerResponse, call: Call) => void> = {
  hang: () => {},
  garbage: (res) => {
    res.writeHead(200, sseHead).write('data: this is not { json\n\n');
    every(res, 500, () => res.write('data: this is not { json\n\n'));
  },
  drip: (res, call) => {
    res.writeHead(200, sseHead);
    drip(res, `event: message\ndata: ${answer(call.id, 'dripped')}\n\n`);
  },
  drip_json: (res, call) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    drip(res, answer(call.id, 'dripped'));
  },
  progress: (res, call) => {
    res.writeHead(200, sseHead);
    const seconds = call.params?.arguments?.seconds ?? 5;
    const token = call.params?._meta?.progressToken;
    every(res, 1_000, (n) => {
      if (n + 1 >= seconds) return void res.end(`event: message\ndata: ${answer(call.id, 'done')}\n\n`);
      const progress = {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: n + 1, total: seconds },
      };
      res.write(`event: message\ndata: ${JSON.stringify(progress)}\n\n`);
      return true;
    });
  },
  ok: (res, call) => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer(call.id, 'ok')),
  big: (res, call) => {
    const { mib = 1, json = false } = call.params?.arguments ?? {};
    const message = Buffer.from(answer(call.id, bigText(mib)));
    const body = json ? message : Buffer.concat([Buffer.from('event: message\ndata: '), message, Buffer.from('\n\n')]);
    res.writeHead(200, {
      'content-type': json ? 'application/json' : 'text/event-stream',
      'content-length': String(body.length),
    });
    const write = (at: number): void => {
      if (at >= body.length) return void res.end();
      if (res.write(body.subarray(at, at + MIB))) setImmediate(() => write(at + MIB));
      else res.once('drain', () => write(at + MIB));
    };
    write(0);
  },
};

const MIB = 1024 * 1024;

/** `mib` MiB of text that JSON must escape (quotes, backslashes, newlines) */
export function bigText(mib: number): string {
  const line = 'a line with "quotes", a \\ backslash and a newline\n';
  return line.repeat(Math.ceil((mib * MIB) / line.length)).slice(0, mib * MIB);
}

/** The size in bytes of the JSON-RPC answer of `big` (the message on the wire, without SSE framing). */
export const bigMessageBytes = (mib: number, id: unknown): number => Buffer.byteLength(answer(id, bigText(mib)));

function handle(req: IncomingMessage, res: ServerResponse, calls: string[]): void {
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call;
    if (call.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown): void =>
      void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    if (call.method === 'initialize')
      return json({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'stalling', version: '1' },
      });
    if (call.method === 'tools/list')
      return json({ tools: RAW_TOOLS.map((name) => ({ name, inputSchema: { type: 'object' } })) });
    const name = call.params?.name ?? '';
    if (call.method === 'tools/call' && Object.hasOwn(TOOLS, name)) {
      calls.push(name);
      return TOOLS[name as keyof typeof TOOLS](res, call);
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'no such method' } }));
  });
}

export async function startRawUpstream(): Promise<RawUpstream> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => handle(req, res, calls));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
