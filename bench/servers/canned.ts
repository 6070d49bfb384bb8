/**
 * The ceiling, and the "minimal upstream": a bare node:http server that reads the whole JSON-RPC body, parses it
 * (any real server must) and answers every request with the canned tools/call result — initialize with a real
 * initialize result, so an MCP client (the CLI's upstream detection) accepts it; notifications get 202, and GET /
 * DELETE 405 (no standalone stream, no sessions), as a stateless Streamable HTTP server answers them.
 *   node --import tsx bench/servers/canned.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { INITIALIZE_RESULT, toolResult } from '../cassette-gen.js';
import { announce } from './serve.js';

const RESULT = JSON.stringify(toolResult(0));
const INITIALIZE = JSON.stringify(INITIALIZE_RESULT);

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof message;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const { id } = message;
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = message.method === 'initialize' ? INITIALIZE : RESULT;
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}/mcp`, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
