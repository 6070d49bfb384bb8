/**
 * `--stdio`: the CLI itself speaks MCP on its stdin/stdout (newline-delimited JSON-RPC), so an agent whose config
 * launches a command can record or replay through mcp-rewind. Each line is piped raw onto the proxy's own
 * Streamable HTTP endpoint (http-pipe.ts); nothing but MCP messages may reach stdout.
 *
 * When stdin ends (the client is done), the requests still being answered get a few seconds to finish, then the
 * proxy session is ended (DELETE) and `done` resolves — the CLI then shuts down and exits 0.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pipeToProxy } from './http-pipe.js';
import { silent, type Log } from '../log.js';

export interface StdioBridge {
  /** resolves when stdin has ended (or stdout broke) and the pipe is closed */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

/** How long answers to requests already sent may still arrive after stdin ended. */
const DRAIN_MS = 5_000;

export async function bridgeStdio(
  proxyUrl: string,
  io: {
    stdin: Readable;
    stdout: Writable;
    /** sees each client message first (an attached proxy reads the client's name) */ onMessage?: (
      message: unknown,
    ) => void;
  },
  log: Log = silent,
): Promise<StdioBridge> {
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const pipe = await pipeToProxy(transport, proxyUrl, log);
  const forward = transport.onmessage;
  if (io.onMessage && forward)
    transport.onmessage = (message) => {
      io.onMessage!(message);
      forward(message);
    };
  const finish = async (): Promise<void> => {
    await pipe.idle(DRAIN_MS);
    await pipe.close();
  };
  io.stdin.once('end', () => void finish());
  io.stdin.once('close', () => void finish());
  // the client went away without reading: nothing more can be delivered
  io.stdout.on('error', () => void pipe.close());
  return { done: pipe.closed, close: () => pipe.close() };
}
