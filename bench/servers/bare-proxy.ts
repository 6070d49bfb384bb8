/**
 * Reference for proxy-only: the least a Node HTTP proxy can do — forward the POST upstream on a keep-alive agent and
 * pipe the answer back, no parsing, no JSON-RPC. What no Node proxy can beat on this machine.
 *   node --import tsx bench/servers/bare-proxy.ts <upstreamUrl>
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from './serve.js';

const upstream = new URL(process.argv[2] ?? '');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  const upReq = http.request(
    { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers, agent },
    (upRes) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(upRes.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(upRes.statusCode ?? 502, out);
      upRes.pipe(res);
    },
  );
  upReq.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upReq);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}/mcp`, async () => {
    server.closeAllConnections();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
