/**
 * Third-party stdio MCP servers from npm as peers (issue 21): `@modelcontextprotocol/server-filesystem` (asks the
 * client for `roots/list` as soon as it is initialized, then serves those folders) and
 * `@modelcontextprotocol/server-memory` (a knowledge graph kept in a JSON file). A client scenario runs three ways: straight
 * at the command over stdio, through a recording proxy (the command bridged onto Streamable HTTP), and through a
 * replaying proxy with the command stopped — each live way with its own fresh server state.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import type { Mode } from '../../src/shared/modes.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { startUpstreamBridge, type UpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { tempDir } from './temp.js';

const require = createRequire(import.meta.url);
const entry = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
export const FILESYSTEM_ENTRY = entry('@modelcontextprotocol/server-filesystem');
export const MEMORY_ENTRY = entry('@modelcontextprotocol/server-memory');

export interface StdioCommand {
  args: string[];
  env?: Record<string, string>;
}

export interface PeerClient {
  client: Client;
  /** what the server printed on stderr so far (direct and bridged; nothing in replay, where no server runs) */
  serverSaid(): string;
  /** how many roots/list requests the server sent this client */
  rootsAsked(): number;
  close(): Promise<void>;
}

export type Way = 'direct' | Exclude<Mode, 'hybrid'>;

/** Which TypeScript SDK the client is of: v1 (`@modelcontextprotocol/sdk`) or v2 (`@modelcontextprotocol/client`). */
export type Sdk = 'v1' | 'v2';

/**
 * An SDK client (v1 unless `sdk` says v2, whose `callTool` and `listTools` are called alike); with `roots` it declares
 * the capability and answers roots/list with those folders.
 */
export async function connectPeer(
  transport: Transport,
  roots?: string[],
  serverSaid: () => string = () => '',
  sdk: Sdk = 'v1',
): Promise<PeerClient> {
  const info = { name: 'peer-client', version: '1.0.0' };
  const options = { capabilities: roots ? { roots: {} } : {} };
  let asked = 0;
  const answer = () => {
    asked++;
    return { roots: (roots ?? []).map((folder) => ({ uri: `file://${folder}`, name: folder })) };
  };
  if (sdk === 'v2') {
    const client = new V2Client(info, options);
    if (roots) client.setRequestHandler('roots/list', answer);
    await client.connect(transport as never);
    return { client: client as unknown as Client, serverSaid, rootsAsked: () => asked, close: () => client.close() };
  }
  const client = new Client(info, options);
  if (roots) client.setRequestHandler(ListRootsRequestSchema, answer);
  await client.connect(transport);
  return { client, serverSaid, rootsAsked: () => asked, close: () => client.close() };
}

/**
 * Runs `scenario` against `command` (node + args) one way: direct (stdio), or through a proxy of that mode in front
 * of the bridged command; `replay` needs the `cacheDir` a `record` way filled, and starts no command at all.
 */
export async function throughWay<T>(
  way: Way,
  command: StdioCommand,
  cacheDir: string | undefined,
  scenario: (connect: (roots?: string[]) => Promise<PeerClient>) => Promise<T>,
  sdk: Sdk = 'v1',
): Promise<T> {
  const opened: Array<{ close(): Promise<void> }> = [];
  let said = '';
  const serverSaid = () => said;
  try {
    if (way === 'direct') {
      return await scenario(async (roots) => {
        const params = {
          command: process.execPath,
          args: command.args,
          env: { ...process.env, ...command.env } as Record<string, string>,
          stderr: 'pipe' as const,
        };
        const stdio = sdk === 'v2' ? new V2StdioTransport(params) : new StdioClientTransport(params);
        stdio.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
        const peer = await connectPeer(stdio as Transport, roots, serverSaid, sdk);
        opened.push(peer);
        return peer;
      });
    }
    let upstreamUrl: string | undefined;
    let upstreamDispatch: UpstreamBridge['dispatch'] | undefined;
    if (way !== 'replay') {
      const bridge = await startUpstreamBridge(
        { kind: 'stdio', command: process.execPath, args: command.args, env: command.env },
        (line) => (said += `${line}\n`),
      );
      opened.push(bridge);
      upstreamUrl = bridge.url;
      upstreamDispatch = bridge.dispatch; // in process, as the CLI reaches its bridge
    }
    const proxy = await startProxy({
      mode: way,
      upstreamUrl,
      upstreamDispatch,
      cacheDir: way === 'proxy-only' ? undefined : (cacheDir ?? (await tempDir())),
    });
    opened.unshift(proxy);
    const seen = await scenario(async (roots) => {
      const url = new URL(proxy.url);
      const http = sdk === 'v2' ? new V2HttpTransport(url) : new StreamableHTTPClientTransport(url);
      const peer = await connectPeer(http as Transport, roots, serverSaid, sdk);
      opened.unshift(peer);
      return peer;
    });
    await proxy.flush();
    return seen;
  } finally {
    for (const thing of opened) await thing.close().catch(() => {});
  }
}

const CLI = join(dirname(require.resolve('../../package.json')), 'bin', 'mcp-rewind.js');

/**
 * A client of the built CLI's `--stdio` proxy (a real process; run `npm run build:cli` first) in front of the command
 * (`--upstream-command`): `modeArgs` are the CLI's mode flags (`--proxy-only`, or `--cache <dir>` to record).
 */
export function connectThroughCli(command: StdioCommand, modeArgs: string[], roots?: string[]): Promise<PeerClient> {
  const upstream = [process.execPath, ...command.args].map((word) => JSON.stringify(word)).join(' ');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--stdio', ...modeArgs, '--upstream-command', upstream],
    env: { ...process.env, ...command.env } as Record<string, string>,
    stderr: 'ignore',
  });
  return connectPeer(transport, roots);
}

/** Waits until `done()` or `ms` passed; true when it happened. */
/** A proxy in front of a bridged command, reaching the bridge in process (as the CLI does); a fresh cassette folder unless given. */
export async function proxyOverBridge(
  bridge: UpstreamBridge,
  options: Omit<ProxyOptions, 'upstreamUrl' | 'upstreamDispatch'>,
): Promise<RunningProxy> {
  return startProxy({
    cacheDir: await tempDir(),
    ...options,
    upstreamUrl: bridge.url,
    upstreamDispatch: bridge.dispatch,
  });
}

export async function within(ms: number, done: () => boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return done();
}
