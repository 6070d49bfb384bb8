/**
 * `serve`'s back-off for wrong tokens never locks out a right one, and rotating the source address buys no fresh
 * budget. The built CLI runs `serve` as a real process; flooding clients send wrong API and session tokens from
 * 127.0.0.1 and from other loopback addresses (Linux routes all of 127.0.0.0/8 to lo: each request binds its socket
 * to one with `localAddress`), while a real client with the right token works. Statuses and counts only, no timing.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostOf } from '../src/main/engine/http/auth-throttle.js';
import { connectClient } from './fixtures/client.js';
import { until } from './engine/robustness-helpers.js';
import { keeper } from './helpers/keep.js';
import { startCli } from './helpers/procfs.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

async function serveProcess(): Promise<{ base: string; apiToken: string }> {
  const dataDir = await tempDir('rewind-serve-');
  const cli = keep(await startCli(['--data-dir', dataDir], { serve: true }));
  return {
    base: cli.url.replace(/\/mcp$/, ''),
    apiToken: readFileSync(join(dataDir, 'serve-api-token'), 'utf8').trim(),
  };
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/** One request with a bearer token, on a connection of its own bound to `from`: its status (0: connection failed). */
function statusOf(url: string, token: string, from: string, body?: string): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body)
      Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    const req = http.request(
      url,
      { method: body ? 'POST' : 'GET', headers, localAddress: from, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** 32 clients sending wrong tokens, round-robin over `from`, until stopped: the statuses they got, counted. */
function flood(url: string, from: string[], body?: string): { counts: Map<number, number>; stop(): Promise<void> } {
  const counts = new Map<number, number>();
  let stopped = false;
  let n = 0;
  const workers = Array.from({ length: 32 }, async () => {
    while (!stopped) {
      const i = n++;
      const status = await statusOf(url, `wrong-token-${i}`, from[i % from.length], body);
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
  });
  return {
    counts,
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

/** 127.0.0.2, 127.0.0.3 … : `count` loopback addresses other than 127.0.0.1 */
const loopback = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `127.0.${Math.floor((i + 1) / 254)}.${((i + 1) % 254) + 1}`);
/** every other request from the right client's own 127.0.0.1, the rest rotating through 64 other addresses */
const FLOOD_FROM = loopback(64).flatMap((address) => ['127.0.0.1', address]);

describe('serve: wrong tokens back off without locking out the right one', () => {
  it('REST API: during a flood of wrong API tokens from 127.0.0.1 and 64 other loopback addresses, the right token gets all 29 answers; the flood gets 429', async () => {
    const { base, apiToken } = await serveProcess();
    const wrong = flood(`${base}/api/sessions`, FLOOD_FROM);
    await until(() => (wrong.counts.get(429) ?? 0) > 0, 30_000, 'the flood meets the back-off');
    const right: number[] = [];
    for (let i = 0; i < 29; i++) right.push(await statusOf(`${base}/api/sessions`, apiToken, '127.0.0.1'));
    await wrong.stop();
    expect(right).toEqual(Array(29).fill(200));
    expect((wrong.counts.get(429) ?? 0) + (wrong.counts.get(401) ?? 0)).toBe(
      [...wrong.counts.values()].reduce((a, b) => a + b, 0),
    );
    expect(wrong.counts.get(429)).toBeGreaterThan(0);
  });

  it('MCP endpoint: during a flood of wrong session tokens, a real SDK client with the right one gets every answer', async () => {
    const { base, apiToken } = await serveProcess();
    const created = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiToken}` },
      body: JSON.stringify({
        tools: [
          { name: 'hello', input_schema: { type: 'object' }, behavior: { type: 'override', response: { text: 'hi' } } },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const { mcp } = (await created.json()) as { mcp: { url: string; headers: Record<string, string> } };
    const wrong = flood(`${base}/mcp`, FLOOD_FROM, PING);
    await until(() => (wrong.counts.get(429) ?? 0) > 0, 30_000, 'the flood meets the back-off');
    const client = keep(await connectClient(mcp.url, { headers: mcp.headers }));
    const answers: string[] = [];
    for (let i = 0; i < 29; i++) {
      answers.push(
        await client.client.callTool({ name: 'hello', arguments: {} }).then(
          (r) => JSON.stringify(r.content),
          (e: Error) => e.message,
        ),
      );
    }
    await wrong.stop();
    expect(answers).toEqual(Array(29).fill(JSON.stringify([{ type: 'text', text: 'hi' }])));
    expect(wrong.counts.get(429)).toBeGreaterThan(0);
  });

  it('a burst of wrong tokens from 200 loopback addresses, one each, shares one budget: most of it gets 429', async () => {
    const { base } = await serveProcess();
    const statuses = await Promise.all(
      loopback(200).map((from, i) => statusOf(`${base}/api/sessions`, `wrong-${i}`, from)),
    );
    const count = (s: number): number => statuses.filter((x) => x === s).length;
    expect(count(401) + count(429)).toBe(200);
    // per address (before), every one of them was a first failure: 200 × 401, none refused
    expect(count(429)).toBeGreaterThanOrEqual(100);
  });
});

describe('the host the back-off counts', () => {
  it('is one for all of loopback, the IPv4 address of a mapped one, and the /64 of other IPv6 addresses', () => {
    expect(new Set(['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.9'].map(hostOf))).toEqual(new Set(['loopback']));
    expect(hostOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(hostOf('192.0.2.7')).not.toBe(hostOf('192.0.2.8'));
    expect(hostOf('2001:db8:1:2:aaaa::1')).toBe(hostOf('2001:0db8:0001:0002:ffff:1:2:3'));
    expect(hostOf('2001:db8:1:2::1')).not.toBe(hostOf('2001:db8:1:3::1'));
    expect(hostOf('fe80::1%eth0')).toBe(hostOf('fe80::2'));
  });
});
