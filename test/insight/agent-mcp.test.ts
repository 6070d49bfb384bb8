/**
 * Issue 26, part 4: `mcp-rewind mcp` as a real process (the built CLI), connected to a real `mcp-rewind ui` with
 * traffic, driven by the SDK client and by the MCP Inspector's CLI. Read-only by default; the send tools appear (with
 * tools/list_changed) once Settings allow them; secrets are redacted in what it returns. Build first (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RewindClient } from '../../src/shared/api-client.js';
import { connectRunningUi } from '../../src/main/web/ui-link.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { connectClient } from '../fixtures/client.js';
import { BIN, REPO } from '../helpers/hostile.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { startUiProcess, type UiProcess } from '../helpers/ui-process.js';

const SECRET = 'sk-agentmcptest0123456789abcdef';
let ui: UiProcess;
let api: RewindClient;
let upstream: SdkServerHandle;
let dataDir: string;
let agent: Client;
let echoSeq: number;

const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]?.text ?? '';
const parsed = <T>(result: unknown): T => JSON.parse(text(result)) as T;

beforeAll(async () => {
  dataDir = await tempDir('rewind-agent-');
  ui = await startUiProcess(dataDir, { args: ['--no-open'] });
  api = await connectRunningUi(dataDir);
  upstream = await startSdkServer();
  const proxy = await api.call('proxies.create', { name: 'fixture', mode: 'proxy-only', upstreamUrl: upstream.url });
  const mcp = await connectClient(proxy.url as string);
  await mcp.client.listTools();
  await mcp.client.callTool({ name: 'echo', arguments: { text: `token ${SECRET}` } });
  await mcp.close();
  for (let i = 0; i < 100; i++) {
    const { items } = await api.call('traffic.query', { tool: 'echo' });
    if (items[0]?.tokens !== undefined) {
      echoSeq = items[0].seq;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  agent = new Client({ name: 'test-agent', version: '1' });
  await agent.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', dataDir],
      cwd: REPO,
      stderr: 'pipe',
    }),
  );
}, 60_000);

afterAll(async () => {
  await agent?.close();
  api?.close();
  await ui?.stop();
  await upstream?.close();
  await removeTempDirs();
});

describe('mcp-rewind mcp, driven by the SDK client', () => {
  it('lists the read-only tools by default, and the exchanges newest first with their tokens', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'cassette_entries',
      'context_cost',
      'diff_exchanges',
      'get_exchange',
      'list_exchanges',
      'list_problems',
      'list_proxies',
      'read_entry',
    ]);
    const listed = parsed<{ items: Array<{ seq: number; method: string; tokens?: number }> }>(
      await agent.callTool({ name: 'list_exchanges', arguments: {} }),
    );
    expect(listed.items[0].seq).toBeGreaterThan(listed.items.at(-1)?.seq ?? 0);
    expect(listed.items.find((i) => i.seq === echoSeq)?.tokens).toBeGreaterThan(0);
    const problems = parsed<unknown[]>(
      await agent.callTool({ name: 'list_exchanges', arguments: { query: 'has:problem' } }),
    );
    expect((problems as unknown as { items: unknown[] }).items).toEqual([]); // the fixture server breaks no rule
  });

  it('gets an exchange with secrets redacted, and pages a long body', async () => {
    const whole = parsed<{ text: string; total_chars: number; next_offset?: number }>(
      await agent.callTool({ name: 'get_exchange', arguments: { seq: echoSeq } }),
    );
    expect(whole.text).toContain('"echo"');
    expect(whole.text).not.toContain(SECRET);
    expect(whole.text).toContain('[REDACTED]');
    const first = parsed<{ text: string; next_offset: number }>(
      await agent.callTool({ name: 'get_exchange', arguments: { seq: echoSeq, max_chars: 100 } }),
    );
    const rest = parsed<{ text: string }>(
      await agent.callTool({
        name: 'get_exchange',
        arguments: { seq: echoSeq, offset: first.next_offset, max_chars: 200_000 },
      }),
    );
    expect(first.text + rest.text).toBe(whole.text);
    const missing = await agent.callTool({ name: 'get_exchange', arguments: { seq: 999_999 } });
    expect(missing.isError).toBe(true);
  });

  it('diffs two exchanges and lists proxies', async () => {
    const { items } = await api.call('traffic.query', {});
    const diff = parsed<{ changes: Array<{ path: string }> }>(
      await agent.callTool({ name: 'diff_exchanges', arguments: { a: items[0].seq, b: items[1].seq } }),
    );
    expect(diff.changes.some((c) => c.path.startsWith('request.'))).toBe(true);
    const proxies = parsed<Array<{ name: string; exchanges: number }>>(
      await agent.callTool({ name: 'list_proxies', arguments: {} }),
    );
    expect(proxies[0]).toMatchObject({ name: 'fixture' });
  });

  it('lists exchanges as rewind://exchange/<n> resources and reads one', async () => {
    const { resources } = await agent.listResources();
    expect(resources.some((r) => r.uri === `rewind://exchange/${echoSeq}`)).toBe(true);
    const read = await agent.readResource({ uri: `rewind://exchange/${echoSeq}` });
    const body = (read.contents[0] as { text: string }).text;
    expect(JSON.parse(body).seq).toBe(echoSeq);
    expect(body).not.toContain(SECRET);
  });

  it('says the resource list changed as new traffic arrives', async () => {
    const changed = new Promise<void>((resolve) =>
      agent.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()),
    );
    const proxy = (await api.call('proxies.list', {}))[0];
    const mcp = await connectClient(proxy.url as string);
    await mcp.client.listTools();
    await mcp.close();
    await changed;
    const { resources } = await agent.listResources();
    expect(resources.length).toBeGreaterThan(0);
  });

  it('offers the send tools only once Settings allow them (tools/list_changed), and resends through the proxy', async () => {
    const changed = new Promise<void>((resolve) =>
      agent.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await api.call('settings.set', { agentCanSend: true });
    await changed;
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['resend_exchange', 'edit_and_resend']),
    );
    const sent = parsed<{ seq: number; response: { result: { content: Array<{ text: string }> } } }>(
      await agent.callTool({ name: 'edit_and_resend', arguments: { seq: echoSeq, arguments: { text: 'again' } } }),
    );
    expect(sent.response.result.content[0].text).toContain('again');
    expect(sent.seq).toBeGreaterThan(echoSeq);
    await api.call('settings.set', { agentCanSend: false });
    for (let i = 0; i < 50 && (await agent.listTools()).tools.some((t) => t.name === 'resend_exchange'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await agent.listTools()).tools.map((t) => t.name)).not.toContain('resend_exchange');
  });
});

describe('mcp-rewind mcp, driven by the MCP Inspector CLI', () => {
  const inspector = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const build = `${REPO}/node_modules/@modelcontextprotocol/inspector-cli/build`;
    // the target's command goes before `--`, its arguments after; the CLI finds its own package.json from its folder
    const target = [process.execPath, ...args, '--', BIN, 'mcp', '--data-dir', dataDir];
    const child = spawn(process.execPath, [`${build}/index.js`, ...target], {
      cwd: build,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    return new Promise((resolve) =>
      child.once('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr }))),
    );
  };

  it('lists the tools and calls list_exchanges', async () => {
    const tools = await inspector(['--method', 'tools/list']);
    expect(tools.code, tools.stderr).toBe(0);
    expect(JSON.parse(tools.stdout).tools.map((t: { name: string }) => t.name)).toContain('list_exchanges');
    const called = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'list_exchanges',
      '--tool-arg',
      'tool=echo',
    ]);
    expect(called.code, called.stderr).toBe(0);
    const items = JSON.parse(JSON.parse(called.stdout).content[0].text).items as Array<{ tool: string }>;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.tool === 'echo')).toBe(true);
  });
});

describe('mcp-rewind mcp without a running UI', () => {
  it('says so on stderr and exits 1, writing nothing to stdout', async () => {
    const empty = await tempDir('rewind-agent-none-');
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', empty], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/no mcp-rewind ui runs on .*start it with `mcp-rewind ui` first/);
  });
});
