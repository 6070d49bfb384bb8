/**
 * The ceiling, and the "minimal upstream": a bare node:http server that reads the whole JSON-RPC body, parses it
 * (any real server must) and answers every request with the canned tools/call result; notifications get 202.
 *   node --import tsx bench/servers/canned.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolResult } from '../cassette-gen.js';
import { announce } from './serve.js';

const RESULT = JSON.stringify(toolResult(0));

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let id: unknown;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${RESULT}}`;
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
