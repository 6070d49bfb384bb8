/**
 * Self-test of the test fixtures: the client fixture talks directly (no proxy) to the SDK fixture server in its four
 * variants and to server-everything.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Notification, Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectClientOptions, type ConnectedClient } from './fixtures/client.js';
import { startEverything, type EverythingHttpHandle } from './fixtures/everything.js';
import {
  FIXTURE_SERVER_INSTRUCTIONS,
  FIXTURE_SERVER_NAME,
  startSdkServer,
  type SdkServerHandle,
} from './fixtures/sdk-server.js';

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

const variants = [
  { stateless: false, json: false },
  { stateless: false, json: true },
  { stateless: true, json: false },
  { stateless: true, json: true },
] as const;

describe.each(variants)('SDK fixture server (stateless=$stateless, json=$json)', ({ stateless, json }) => {
  let server: SdkServerHandle;
  const clients: ConnectedClient[] = [];

  async function connect(opts?: ConnectClientOptions): Promise<ConnectedClient> {
    const c = await connectClient(server.url, opts);
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    // In JSON mode a server→client request tied to the tools/call is dropped by the SDK and can only time out:
    // keep that timeout short. Its expiry is the expected outcome, not a race.
    server = await startSdkServer({ stateless, json, serverRequestTimeoutMs: json ? 500 : undefined });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('initializes with the fixture identity and lists tools, resources, prompts', async () => {
    const { client } = await connect();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    expect(client.getServerVersion()?.name).toBe(FIXTURE_SERVER_NAME);
    expect(client.getInstructions()).toBe(FIXTURE_SERVER_INSTRUCTIONS);
    expect(client.getServerCapabilities()?.logging).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'counter', 'echo', 'elicit', 'fail', 'progress', 'sample']);
    expect(tools.find((t) => t.name === 'add')?.outputSchema).toBeDefined();

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['fixture://hello']);
    const read = await client.readResource({ uri: 'fixture://hello' });
    expect(read.contents[0]).toMatchObject({ uri: 'fixture://hello', text: 'hello resource' });

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bob' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Bob!' });
  });

  it('echo, add, counter, fail; records calls; echo prefix is switchable', async () => {
    const { client } = await connect();
    const before = server.calls.length;

    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    server.setEchoPrefix('v2: ');
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('v2: hi');
    } finally {
      server.setEchoPrefix('echo: ');
    }

    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(textOf(add)).toBe('5');
    expect(add.structuredContent).toEqual({ sum: 5 });

    const c1 = Number(textOf(await client.callTool({ name: 'counter', arguments: {} })).replace('count ', ''));
    const c2 = Number(textOf(await client.callTool({ name: 'counter', arguments: {} })).replace('count ', ''));
    expect(c2).toBe(c1 + 1);

    const fail = await client.callTool({ name: 'fail', arguments: {} });
    expect(fail.isError).toBe(true);
    expect(textOf(fail)).toBe('failed on purpose');

    expect(server.calls.slice(before).map((c) => c.tool)).toEqual([
      'echo',
      'echo',
      'add',
      'counter',
      'counter',
      'fail',
    ]);
    expect(server.calls[before]?.args).toEqual({ text: 'hi' });
    if (stateless) expect(server.calls[before]?.sessionId).toBeUndefined();
    else expect(server.calls[before]?.sessionId).toBe(clients[0]?.sessionId());
  });

  it('progress: notifications on the POST stream (dropped in JSON response mode)', async () => {
    const { client, notifications } = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(textOf(result)).toBe('done 3');

    const logs = notifications.filter((n) => n.method === 'notifications/message');
    const progressNotes = notifications.filter((n) => n.method === 'notifications/progress');
    if (json) {
      // enableJsonResponse: the SDK transport silently drops every non-response message tied to a request.
      expect(progress).toEqual([]);
      expect(progressNotes).toEqual([]);
      expect(logs).toEqual([]);
    } else {
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
      expect(progress.every((p) => p.total === 3)).toBe(true);
      expect(progressNotes).toHaveLength(3);
      expect(logs).toHaveLength(1);
      expect(logs[0]?.params).toMatchObject({ level: 'info', logger: 'fixture', data: 'progress finished 3 steps' });
    }
  });

  it('sample and elicit round-trip through the client (stateful SSE only)', async () => {
    const { client } = await connect();
    const sample = await client.callTool({ name: 'sample', arguments: { prompt: 'hello' } });
    const elicit = await client.callTool({ name: 'elicit', arguments: {} });
    if (stateless) {
      // A per-request server never saw initialize, so it does not know the client's capabilities.
      expect(sample.isError).toBe(true);
      expect(textOf(sample)).toMatch(/does not support sampling/);
      expect(elicit.isError).toBe(true);
      expect(textOf(elicit)).toMatch(/does not support form elicitation/);
    } else if (json) {
      // The request is sent with relatedRequestId on a JSON-mode POST: dropped, so it times out.
      expect(sample.isError).toBe(true);
      expect(textOf(sample)).toMatch(/timed out/i);
      expect(elicit.isError).toBe(true);
      expect(textOf(elicit)).toMatch(/timed out/i);
    } else {
      expect(sample.isError).toBeFalsy();
      expect(textOf(sample)).toBe('sampled: sampled-hello');
      expect(textOf(elicit)).toBe('elicited: accept Ada');
    }
  });

  if (!stateless && !json)
    it('custom sampling/elicit handlers; capabilities omitted with false', async () => {
      const seen: unknown[] = [];
      const custom = await connect({
        onSampling: (params) => {
          seen.push(params);
          return { model: 'm', role: 'assistant', content: { type: 'text', text: 'custom' } };
        },
        onElicit: () => ({ action: 'decline' }),
      });
      expect(textOf(await custom.client.callTool({ name: 'sample', arguments: { prompt: 'p' } }))).toBe(
        'sampled: custom',
      );
      expect(seen[0]).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'p' } }] });
      expect(textOf(await custom.client.callTool({ name: 'elicit', arguments: {} }))).toBe('elicited: decline ');

      const bare = await connect({ onSampling: false, onElicit: false });
      const sample = await bare.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
      expect(sample.isError).toBe(true);
      expect(textOf(sample)).toMatch(/does not support sampling/);
    });

  if (!stateless && !json)
    it('fallbackNotificationHandler sees logging but not progress', async () => {
      const { client } = await connect();
      const viaFallback: Notification[] = [];
      client.fallbackNotificationHandler = async (n) => {
        viaFallback.push(n);
      };
      await client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
      expect(viaFallback.map((n) => n.method)).toEqual(['notifications/message']);
    });

  if (!stateless)
    it('sessions: one per client, removed on DELETE', async () => {
      const c = await connect();
      const sid = c.sessionId();
      expect(sid).toBeTruthy();
      expect(server.sessionIds()).toContain(sid);
      await c.close();
      clients.splice(clients.indexOf(c), 1);
      expect(server.sessionIds()).not.toContain(sid);
    });
});

describe('server-everything', () => {
  describe.each(['streamableHttp', 'sse'] as const)('%s', (transport) => {
    let ev: EverythingHttpHandle;
    beforeAll(async () => {
      ev = await startEverything(transport);
    });
    afterAll(async () => {
      await ev?.close();
    });

    it('lists tools and calls echo', async () => {
      expect(ev.url).toBe(`http://127.0.0.1:${ev.port}${transport === 'sse' ? '/sse' : '/mcp'}`);
      const c = await connectClient(ev.url, { transport });
      try {
        const { tools } = await c.client.listTools();
        expect(tools.map((t) => t.name)).toContain('echo');
        const result = await c.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
        expect(textOf(result)).toBe('Echo: hi');
      } finally {
        await c.close();
      }
    });

    it('close() kills the process', async () => {
      const pid = ev.pid;
      await ev.close();
      expect(() => process.kill(pid, 0)).toThrow();
    });
  });

  it('stdio: command/args work with StdioClientTransport', async () => {
    const ev = await startEverything('stdio');
    const client = new Client({ name: 'fixture-client', version: '1.0.0' });
    try {
      await client.connect(new StdioClientTransport({ command: ev.command, args: ev.args, stderr: 'ignore' }));
      const result = await client.callTool({ name: 'echo', arguments: { message: 'stdio' } });
      expect(textOf(result)).toBe('Echo: stdio');
    } finally {
      await client.close();
      await ev.close();
    }
  });
});
