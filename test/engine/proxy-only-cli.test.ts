/**
 * `mcp-rewind --proxy-only --url …` as a user starts it (the built CLI: its default upstream limits and sign-in are
 * on the path, unlike startProxy's), piping POSTs unparsed with nobody watching (issue 32 item 3 made that path
 * cheaper: one timer sweep for the call limits, no awaits for a sign-in nobody holds). What it must still do, with a
 * real SDK server upstream and a real SDK client: Host and Origin checks at the edge, the upstream's session ids
 * handed through (and its 404 for an unknown one), streamed SSE answers with their progress, a JSON-RPC error with
 * the request's id when the upstream is gone. (The sign-in through this path: test/oauth/failures.test.ts.)
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { startCli } from '../helpers/procfs.js';
import { textOf } from './robustness-helpers.js';

const { keep, closeAll } = keeper();
afterEach(closeAll);

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST (node:http, so that Host can be set as a DNS-rebinding page would send it). */
function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the CLI in proxy-only, piping unparsed', () => {
  it('refuses a foreign Host or Origin at the edge; nothing of them reaches the upstream', async () => {
    const upstream = keep(await startSdkServer());
    const cli = keep(await startCli(['--proxy-only', '--url', upstream.url]));
    const before = upstream.messages.length;
    const host = await post(cli.url, INIT, { host: 'evil.example:80' });
    const origin = await post(cli.url, INIT, { origin: 'http://evil.example' });
    expect(host.status).toBe(403);
    const reason = (answer: { text: string }): string =>
      (JSON.parse(answer.text) as { error: { message: string } }).error.message;
    expect(reason(host)).toContain('Host "evil.example:80" is not allowed');
    expect(origin.status).toBe(403);
    expect(reason(origin)).toContain('Origin "http://evil.example" is not allowed');
    expect(upstream.messages.length).toBe(before);
    expect((await post(cli.url, INIT)).status).toBe(200); // the same request from an agent passes
  });

  it("hands the upstream's session through, streams SSE with its progress, and relays the 404 of an unknown session", async () => {
    const upstream = keep(await startSdkServer());
    const cli = keep(await startCli(['--proxy-only', '--url', upstream.url]));
    const client = keep(await connectClient(cli.url));
    expect(client.sessionId()).toBeDefined();
    expect(upstream.sessionIds()).toContain(client.sessionId()); // the upstream's own id, not one of the proxy's
    const progress: number[] = [];
    const result = await client.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(textOf(result)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);
    expect(client.notifications.map((n) => n.method)).toContain('notifications/message');
    expect(upstream.calls.at(-1)).toMatchObject({ tool: 'progress', sessionId: client.sessionId() });
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    const unknown = await post(cli.url, call, {
      'mcp-session-id': 'no-such-session',
      'mcp-protocol-version': '2025-06-18',
    });
    expect(unknown.status).toBe(404);
  });

  it('answers each request with a JSON-RPC error naming the upstream once it is gone, and serves on', async () => {
    const upstream = await startSdkServer();
    const cli = keep(await startCli(['--proxy-only', '--url', upstream.url]));
    const client = keep(await connectClient(cli.url));
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('echo: a');
    await upstream.close();
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 'x-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
      { jsonrpc: '2.0', id: 42, method: 'tools/list' },
    ]);
    const down = await post(cli.url, batch, { 'mcp-session-id': client.sessionId()! });
    expect(down.status).toBe(200);
    const answers = JSON.parse(down.text) as Array<{ id: unknown; error: { code: number; message: string } }>;
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      ['x-1', -32005],
      [42, -32005],
    ]);
    expect(answers[0].error.message).toContain(`upstream ${upstream.url} unavailable`);
    expect(cli.child.exitCode).toBeNull();
  });
});
