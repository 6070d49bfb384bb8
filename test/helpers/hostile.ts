/**
 * Helpers for the hostile-input tests (test/security-*.test.ts): the built CLI run once as a real process, the UI's
 * WebSocket API as the browser shell serves it (`startUi`, the renderer's own client over `ws`), a server whose tools
 * have the names a test gives, and what a folder tree holds.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startUi } from '../../src/main/cli/ui-command.js';
import {
  bridgeProtocols,
  createWebSocketApi,
  type RewindClient,
  type WebSocketLike,
} from '../../src/renderer/src/api/client.js';
import { startCustomUpstream, type CustomUpstream } from './custom-upstream.js';
import { tempDir } from './temp.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin/mcp-rewind.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One run of the built CLI (`node bin/mcp-rewind.js …`; build first), in `cwd`; killed after 30 s. */
export function runCli(args: string[], cwd = REPO): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The pid of a process that has exited (a crashed writer's, as its temp files carry it). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

export interface UiApi {
  api: RewindClient;
  dataDir: string;
  /** the API's WebSocket URL and subprotocols, for a test that sends raw frames */
  url: string;
  protocols: string[];
  close(): Promise<void>;
}

/** `mcp-rewind ui`'s wiring (AppController, the handler table, the web shell) and the renderer's WebSocket client. */
export async function uiApi(): Promise<UiApi> {
  const rendererDir = await tempDir('rewind-renderer-');
  mkdirSync(path.join(rendererDir, 'assets'));
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const dataDir = await tempDir('rewind-data-');
  const running = await startUi({
    host: '127.0.0.1',
    port: 0,
    open: false,
    dataDir,
    version: '0.0.0-test',
    rendererDir,
  });
  const url = `ws://127.0.0.1:${running.shell.port}/api`;
  const protocols = bridgeProtocols(running.shell.token);
  const api = createWebSocketApi({
    url,
    protocols,
    WebSocket: WebSocket as unknown as new (url: string) => WebSocketLike,
  });
  return {
    api,
    dataDir,
    url,
    protocols,
    async close() {
      api.close();
      await running.close();
    },
  };
}

/** The message of a call the API refused (fails when it succeeds). */
export async function refusal(call: Promise<unknown>): Promise<string> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  return outcome.error.message;
}

/** A real MCP server whose tools have these names; each call answers `called <name>`. */
export function namedToolsServer(names: readonly string[]): Promise<CustomUpstream> {
  return startCustomUpstream(() => {
    const server = new Server({ name: 'named-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: names.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: 'text', text: `called ${request.params.name}` }],
    }));
    return server;
  });
}

/** Every file and folder under `root` (folders end with the separator). */
export function treeOf(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).map(
    (e) => path.join(e.parentPath, e.name) + (e.isDirectory() ? path.sep : ''),
  );
}
