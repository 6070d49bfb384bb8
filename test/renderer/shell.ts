import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startUi } from '../../src/main/cli/ui-command.js';
import {
  bridgeProtocols,
  createWebSocketApi,
  type RewindClient,
  type WebSocketLike,
} from '../../src/renderer/src/api/client.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

/**
 * Wiring for the renderer store tests (as in test/web/web-shell-real.test.ts): `startUi` (AppController + the real
 * handler table + the browser shell) and the renderer's own WebSocket client over the `ws` package. No fakes.
 *
 *   afterEach(closeAll);
 *   const { api, dataDir } = await browserShell();
 *   closers.push(attachX(api));
 */

export const closers: Array<() => Promise<void> | void> = [];

export async function closeAll(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
  await removeTempDirs();
}

export interface Shell {
  api: RewindClient;
  dataDir: string;
}

export async function browserShell(): Promise<Shell> {
  const rendererDir = await tempDir('rewind-renderer-');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const dataDir = await tempDir('rewind-data-');
  const running = await startUi({
    host: '127.0.0.1',
    port: 0,
    open: false,
    dataDir,
    version: '0.0.0-test',
    rendererDir,
  });
  closers.push(() => running.close());
  const url = `ws://127.0.0.1:${running.shell.port}/api`;
  // Node 20 has no global WebSocket: the `ws` package stands in for the browser's
  const api = createWebSocketApi({
    url,
    protocols: bridgeProtocols(running.shell.token),
    WebSocket: WebSocket as unknown as new (url: string) => WebSocketLike,
  });
  closers.push(() => api.close());
  return { api, dataDir };
}

/** A real SDK upstream (echo, add, counter, progress, sample, elicit, fail). */
export async function upstream(): Promise<string> {
  const server = await startSdkServer();
  closers.push(() => server.close());
  return server.url;
}

export async function mcpClient(url: string): Promise<ConnectedClient> {
  const c = await connectClient(url);
  closers.push(() => c.close());
  return c;
}

export async function eventually<T>(read: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The text blocks of a tool result, joined. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}
