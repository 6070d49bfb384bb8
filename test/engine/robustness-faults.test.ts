/**
 * Robustness against hostile peers and hard kills: upstream going away mid-session and mid-stream, kill -9 of a
 * recording process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { keyFor } from '../../src/main/engine/cassette/keys.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import {
  REPO,
  answerOf,
  healthcheck,
  isDistilled,
  jsonHeaders,
  rawRequest,
  rawSession,
  tempDir,
  textOf,
  until,
  within,
  removeRobustTempDirs,
} from './robustness-helpers.js';

afterAll(removeRobustTempDirs);

// ---------------------------------------------------------------------------------------------------------------
// upstream failures

describe('upstream going away', () => {
  let proxy: RunningProxy | undefined;
  let sdk: SdkServerHandle | undefined;
  let custom: CustomUpstream | undefined;
  let client: ConnectedClient | undefined;
  const hung: Array<() => void> = [];

  afterEach(async () => {
    hung.splice(0).forEach((release) => release());
    await client?.close().catch(() => {});
    await proxy?.close();
    await sdk?.close();
    await custom?.close();
    client = undefined;
    proxy = undefined;
    sdk = undefined;
    custom = undefined;
  });

  it('upstream stopped mid-session: the next call fails with McpError -32005 naming the upstream; the proxy lives on', async () => {
    sdk = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    proxy = await startProxy({ mode: 'record', upstreamUrl: sdk.url, cacheDir: dir });
    client = await connectClient(proxy.url);
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo: one');

    await sdk.close();
    // a bounded client timeout: a proxy that hangs would surface as -32001 (request timed out), not -32005
    const error = await client.client
      .callTool({ name: 'echo', arguments: { text: 'two' } }, undefined, { timeout: 15_000 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32005);
    expect((error as McpError).message).toContain(sdk.url);

    expect((await healthcheck(proxy)).status).toBe(200);
    // a new client connecting now is refused the same way at initialize, promptly
    const refused = await connectClient(proxy.url).then(
      async (c) => {
        await c.close();
        return new Error('connected to a dead upstream');
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32005);
    // the proxy's error answer is not an upstream answer: nothing of the failed call goes into the cassette
    await proxy.flush();
    const names = await readdir(dir);
    expect(
      names.some((n) =>
        n.includes(keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'one' } } })),
      ),
    ).toBe(true);
    expect(
      names.filter((n) =>
        n.includes(keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'two' } } })),
      ),
    ).toEqual([]);
  });

  // proxy-only with nobody watching takes the untapped byte relay; record parses the stream
  it.each(['record', 'proxy-only'] as const)(
    'upstream killed while a tool call streams (%s): the call rejects (no hang) and the proxy lives on',
    async (mode) => {
      let progressSent!: () => void;
      const progressed = new Promise<void>((resolve) => (progressSent = resolve));
      custom = await startCustomUpstream(() => {
        const server = new Server({ name: 'hanging', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: 'hang', inputSchema: { type: 'object' } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
          const progressToken = request.params._meta?.progressToken;
          if (progressToken !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: 1, total: 2 },
            });
          progressSent();
          await new Promise<void>((resolve) => hung.push(resolve)); // never answers on its own
          return { content: [{ type: 'text', text: 'too late' }] };
        });
        return server;
      });
      const dir = path.join(await tempDir(), 'cassette');
      proxy = await startProxy({ mode, upstreamUrl: custom.url, cacheDir: dir });
      client = await connectClient(proxy.url);

      const progress: number[] = [];
      const call = client.client
        .callTool({ name: 'hang', arguments: {} }, undefined, {
          timeout: 15_000,
          onprogress: (p) => progress.push(p.progress),
        })
        .then(
          () => new Error('the call resolved'),
          (e: unknown) => e,
        );
      await within(progressed, 10_000, 'the upstream tool starting');
      await until(() => progress.length > 0, 10_000, 'the progress notification reaching the client through the proxy');

      custom.kill();
      const error = await within(call, 20_000, 'callTool settling after the upstream died');
      expect(error).toBeInstanceOf(McpError);
      // -32005 is the proxy's "upstream unavailable"; a hanging proxy would give -32001 (client-side timeout)
      expect((error as McpError).code).toBe(-32005);
      expect(progress).toEqual([1]);

      expect((await healthcheck(proxy)).status).toBe(200);
      // the proxy still answers MCP: the same session now gets a JSON-RPC error, not a hang
      const again = await client.client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 15_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((again as McpError).code).toBe(-32005);
      await proxy.flush();
      if (mode === 'record') expect((await readdir(dir)).filter((n) => n.includes('tools_call_hang'))).toEqual([]);
    },
  );

  it('a client that disconnects in the middle of a streamed answer does not hurt the proxy', async () => {
    let started = 0;
    custom = await startCustomUpstream(() => {
      const server = new Server({ name: 'hanging', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        if (request.params.name === 'quick') return { content: [{ type: 'text', text: 'quick' }] };
        started++;
        const progressToken = request.params._meta?.progressToken;
        if (progressToken !== undefined)
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1 } });
        await new Promise<void>((resolve) => hung.push(resolve));
        return { content: [{ type: 'text', text: 'too late' }] };
      });
      return server;
    });
    proxy = await startProxy({
      mode: 'record',
      upstreamUrl: custom.url,
      cacheDir: path.join(await tempDir(), 'cassette'),
    });
    const session = await rawSession(proxy.url);

    for (let i = 0; i < 5; i++) {
      // read the stream up to the progress event, then drop the connection
      const firstEvent = await new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 100 + i,
          method: 'tools/call',
          params: { name: 'hang', arguments: {}, _meta: { progressToken: `t${i}` } },
        });
        const req = http.request(
          proxy!.url,
          {
            method: 'POST',
            headers: { ...jsonHeaders(session), 'content-length': String(Buffer.byteLength(body)) },
            agent: false,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (d: string) => {
              text += d;
              if (text.includes('\n\n')) {
                req.destroy();
                resolve(text);
              }
            });
            res.on('error', () => {});
          },
        );
        req.setTimeout(10_000, () => req.destroy(new Error('no event within 10 s')));
        req.on('error', (e) => {
          if (!e.message.includes('socket hang up') && e.message !== 'aborted') reject(e);
        });
        req.end(body);
      });
      expect(firstEvent).toContain('notifications/progress');
    }
    expect(started).toBe(5);

    expect((await healthcheck(proxy)).status).toBe(200);
    const quick = await rawRequest(proxy.url, {
      headers: jsonHeaders(session),
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'quick', arguments: {} } }),
    });
    expect(answerOf(quick)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'quick' }] } });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// kill -9 safety of the store

describe('cassette store survives kill -9 of a recording process', () => {
  let child: ChildProcess | undefined;
  let proxy: RunningProxy | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    child = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  it('a folder written by a SIGKILLed recorder loads in replay, leaves no temp files, and every distilled file parses', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test/helpers/record-loop.ts'), dir], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const recordedKeys: string[] = [];
    let stderr = '';
    let buffer = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('recorded ')) recordedKeys.push(line.slice('recorded '.length));
      }
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child?.once('exit', (code, signal) => resolve(signal ?? code)),
    );

    await until(
      () => recordedKeys.length >= 60 || child?.exitCode !== null,
      25_000,
      `the child recording 60 exchanges (stderr: ${stderr})`,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nchild stderr:\n${stderr}`);
    });
    expect(child.exitCode, stderr).toBeNull();
    const confirmed = [...recordedKeys];
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith('.rewind-tmp-'))).toEqual([]);
    const distilled = names.filter(isDistilled);
    expect(distilled.length).toBeGreaterThanOrEqual(confirmed.length);
    for (const name of distilled) {
      const text = await readFile(path.join(dir, name), 'utf8');
      expect(() => JSON.parse(text), name).not.toThrow();
    }
    // every exchange the child saw written before the kill is in the replay index
    for (const key of confirmed) expect(proxy.store?.lookup(key)?.length ?? 0, key).toBeGreaterThan(0);
    expect(proxy.store?.size).toBe(distilled.length);
  });
});
