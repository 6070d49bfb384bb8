import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { curlScript, jsonRpcMessage, responseJson, sdkSnippet } from '../../src/renderer/src/models/copy-as.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { messagesOfBody } from '../../src/main/engine/cassette/served-body.js';
import { startSdkServer } from '../fixtures/sdk-server.js';

const run = promisify(execFile);
const TARGET = {
  url: 'http://127.0.0.1:4321/mcp',
  protocolVersion: '2025-06-18',
  title: 'tools/call echo through proxy rec',
};

describe('copy as: the generators', () => {
  it('a JSON-RPC message with a fresh id, and the response as JSON', () => {
    expect(
      JSON.parse(jsonRpcMessage({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } })),
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    });
    expect(JSON.parse(jsonRpcMessage({ method: 'ping' }, 'x'))).toEqual({ jsonrpc: '2.0', id: 'x', method: 'ping' });
    expect(responseJson({ jsonrpc: '2.0', id: 1, result: {} })).toBe(
      '{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {}\n}',
    );
  });

  it('a curl script: its own session (initialize, initialized), the request, DELETE; quotes survive the shell', () => {
    const script = curlScript(
      { method: 'tools/call', params: { name: 'echo', arguments: { text: "it's $HOME `x`" } } },
      TARGET,
    );
    expect(script.startsWith('#!/bin/sh\n# tools/call echo through proxy rec')).toBe(true);
    expect(script).toContain('URL=http://127.0.0.1:4321/mcp');
    expect(script).toContain('"method":"initialize"');
    expect(script).toContain('"protocolVersion":"2025-06-18"');
    expect(script).toContain('notifications/initialized');
    expect(script).toContain('-X DELETE');
    expect(script).toContain(
      `'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"it'\\''s $HOME \`x\`"}}}'`,
    );
    expect(script).not.toMatch(/authorization/i);
  });

  it('secrets only as placeholders: a header the endpoint needs names a variable, never a value', () => {
    const script = curlScript({ method: 'ping' }, { ...TARGET, headers: { Authorization: 'Bearer $MCP_TOKEN' } });
    expect(script).toContain('# Set $MCP_TOKEN first.');
    expect(script).toContain('-H "Authorization: Bearer $MCP_TOKEN"');
    const ts = sdkSnippet({ method: 'ping' }, { ...TARGET, headers: { Authorization: 'Bearer $MCP_TOKEN' } });
    expect(ts).toContain('"Authorization": `Bearer ${process.env.MCP_TOKEN}`');
  });

  it("a TypeScript snippet with the SDK Client's own method, or client.request for the rest", () => {
    const call = sdkSnippet({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, TARGET);
    expect(call).toContain("import { Client } from '@modelcontextprotocol/sdk/client/index.js';");
    expect(call).toContain('new StreamableHTTPClientTransport(new URL("http://127.0.0.1:4321/mcp"))');
    expect(call).toContain(
      '  const result = await client.callTool({\n    "name": "echo",\n    "arguments": {\n      "text": "hi"\n    }\n  });',
    );
    expect(call).not.toMatch(/^await /m); // no top-level await: call.ts runs as CommonJS too
    expect(sdkSnippet({ method: 'resources/read', params: { uri: 'a://b' } }, TARGET)).toContain(
      'client.readResource({\n    "uri": "a://b"\n  })',
    );
    expect(sdkSnippet({ method: 'tools/list' }, TARGET)).toContain('client.listTools()');
    expect(sdkSnippet({ method: 'ping' }, TARGET)).toContain('client.ping()');
    const progress = sdkSnippet(
      { method: 'tools/call', params: { name: 'p', arguments: {}, _meta: { progressToken: 3 } } },
      TARGET,
    );
    expect(progress).toContain('{ onprogress: (p) =>');
    expect(progress).not.toContain('progressToken');
    const other = sdkSnippet({ method: 'tasks/list', params: {} }, TARGET);
    expect(other).toContain("import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';");
    expect(other).toContain('client.request({\n    "method": "tasks/list"\n  }, ResultSchema)');
  });

  it('a method named like an Object.prototype member is a method like any other: client.request', () => {
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(sdkSnippet({ method, params: {} }, TARGET)).toContain(
        `client.request({\n    "method": ${JSON.stringify(method)}\n  }, ResultSchema)`,
      );
    }
  });
});

describe('copy as: what is copied runs against a real proxy and gets the same answer', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const o of open.reverse()) await o.close();
  });

  it('the curl script (sh + curl) and the TypeScript snippet (tsx) both get the echo the proxy answers', async () => {
    const server = await startSdkServer();
    open.push(server);
    const proxy = await startProxy({
      mode: 'proxy-only',
      upstreamUrl: server.url,
      port: 0,
      rules: { overlay: { tools: [], passthrough: true } },
    });
    open.push(proxy);
    const request = { method: 'tools/call', params: { name: 'echo', arguments: { text: "copied 'n run" } } };
    const expected = { content: [{ type: 'text', text: "echo: copied 'n run" }] };

    const { stdout } = await run('sh', ['-c', curlScript(request, { url: proxy.url })], { timeout: 20_000 });
    const answer = messagesOfBody(stdout).find((m) => 'id' in m && m.id === 1) as { result?: unknown };
    expect(answer?.result).toEqual(expected);
    // the script ended its session: only the calls it made reached the server
    expect(server.calls.filter((c) => c.tool === 'echo')).toHaveLength(1);

    // the snippet imports the SDK: it runs from a folder inside the project (node_modules resolves there)
    const dir = join(process.cwd(), 'test-results', 'copy-as');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `call-${process.pid}.mts`);
    writeFileSync(file, sdkSnippet(request, { url: proxy.url }));
    const ts = await run(process.execPath, ['--import', 'tsx', file], { timeout: 30_000 });
    expect(JSON.parse(ts.stdout)).toEqual(expected);

    // its own hint, word for word: saved as call.ts in a folder whose package.json says CommonJS (what `npm init`
    // writes), `npx tsx call.ts` runs it (a top-level await fails there: "not supported with the cjs output format")
    const cjs = join(dir, `cjs-${process.pid}`);
    mkdirSync(cjs, { recursive: true });
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'my-client', version: '1.0.0', type: 'commonjs' }));
    const snippet = sdkSnippet(request, { url: proxy.url });
    expect(snippet).toContain('run with: npx tsx call.ts');
    writeFileSync(join(cjs, 'call.ts'), snippet);
    const hinted = await run(process.execPath, [join(process.cwd(), 'node_modules/tsx/dist/cli.mjs'), 'call.ts'], {
      cwd: cjs,
      timeout: 30_000,
    });
    expect(JSON.parse(hinted.stdout)).toEqual(expected);
  });
});
