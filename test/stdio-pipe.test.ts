/**
 * `--stdio` in front of a stdio server runs stdio to stdio through the message-level pipeline (engine/stdio-proxy.ts),
 * with no loopback HTTP endpoint: the built CLI with server-everything behind it and a real SDK client (or raw lines)
 * in front. Built CLI needed (`npm run build:cli`).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { everythingEntry } from './fixtures/everything.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const CLI = join(import.meta.dirname, '../bin/mcp-rewind.js');
const SERVER = [process.execPath, everythingEntry(), 'stdio'];
afterAll(removeTempDirs);

const text = (result: unknown): string => (result as { content: Array<{ text?: string }> }).content[0]?.text ?? '';

async function session(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'stdio-pipe-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('--stdio in front of a stdio server: stdio to stdio in process', () => {
  it('answers a malformed line with a JSON-RPC error and stays up; stdin end stops it (exit 0) with no HTTP endpoint', async () => {
    const child = spawn(process.execPath, [CLI, '--stdio', '--proxy-only', '--', ...SERVER], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const lines = createInterface({ input: child.stdout });
    const answers: Array<Record<string, unknown>> = [];
    const waiters: Array<() => void> = [];
    lines.on('line', (line) => {
      answers.push(JSON.parse(line) as Record<string, unknown>); // stdout carries JSON-RPC only
      waiters.splice(0).forEach((wake) => wake());
    });
    const answerTo = async (id: unknown): Promise<Record<string, unknown>> => {
      for (;;) {
        const found = answers.find((a) => a.id === id);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const send = (line: string): boolean => child.stdin.write(`${line}\n`);
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }));
    expect(await answerTo(1)).toHaveProperty('result.serverInfo');
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call"'); // cut short
    expect(await answerTo(null)).toMatchObject({ error: { code: -32700 } });
    send(JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'ping' }));
    expect(await answerTo(3)).toMatchObject({ error: { code: -32600 } });
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'still up' } },
      }),
    );
    expect(await answerTo(4)).toMatchObject({ result: { content: [{ type: 'text', text: 'Echo: still up' }] } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toContain('MCP on stdio');
    expect(stderr).not.toMatch(/MCP endpoint\s+http/); // no loopback HTTP endpoint in between
  });

  it('records through --stdio (the cassette has its debug files), then replays it with the server gone', async () => {
    const cacheDir = await tempDir();
    const live = await session(['--stdio', '--cache', cacheDir, '--', ...SERVER]);
    const recorded = text(await live.client.callTool({ name: 'echo', arguments: { message: 'kept on disk' } }));
    expect(recorded).toBe('Echo: kept on disk');
    await live.client.close();
    const files = await readdir(cacheDir);
    const entry = files.find((f) => /tools_call_echo_.*(?<!\.req|\.res|\.res-head)\.json$/.test(f));
    expect(entry, files.join(', ')).toBeDefined();
    const stem = entry!.replace(/\.json$/, '');
    expect(files).toEqual(expect.arrayContaining([`${stem}.req.json`, `${stem}.res.json`, `${stem}.res-head.json`]));
    const req = JSON.parse(await readFile(join(cacheDir, `${stem}.req.json`), 'utf8'));
    expect(req.body).toMatchObject({ method: 'tools/call', params: { arguments: { message: 'kept on disk' } } });
    const raw = JSON.parse(await readFile(join(cacheDir, `${stem}.res.json`), 'utf8')); // the server's own JSON line
    expect(raw.result.content[0].text).toBe('Echo: kept on disk');
    const initReq = files.find((f) => /initialize\.req\.json$/.test(f));
    expect(initReq).toBeDefined(); // verify reads the recorded client's initialize from it

    const replay = await session(['--stdio', '--replay', '--cache', cacheDir]);
    expect(text(await replay.client.callTool({ name: 'echo', arguments: { message: 'kept on disk' } }))).toBe(recorded);
    await replay.client.close();
  });
});
