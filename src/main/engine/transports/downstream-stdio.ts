/**
 * `--stdio`: the CLI itself speaks MCP on its stdin/stdout (newline-delimited JSON-RPC), so an agent whose config
 * launches a command can record or replay through mcp-rewind. Each line is piped raw onto the proxy's own
 * Streamable HTTP endpoint (http-pipe.ts); nothing but MCP messages may reach stdout.
 *
 * When stdin ends (the client is done), the requests still being answered get a few seconds to finish, then the
 * proxy session is ended (DELETE) and `done` resolves — the CLI then shuts down and exits 0.
 */
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { pipeToProxy } from './http-pipe.js';
import { silent, type Log } from '../log.js';

/** How long an answer waits after the messages before it were written, for the client to read them first. */
const READ_FIRST_MS = 10;

/**
 * The client's stdout, written message by message in order, where an answer never shares a read with the messages
 * before it (issue 21 item 8). The v1 SDK client handles a notification a microtask after reading it but an answer at
 * once, and the answer ends its request's progress handler: progress read in the same chunk as its answer is dropped
 * — which back-to-back writes (a replay with `--replay-timing none`, a fast server) made the rule. So an answer that
 * follows a notification or a request goes out once those are written and the client had a moment to read them.
 */
class ReadFirstStdioTransport extends StdioServerTransport {
  private queue: Promise<void> = Promise.resolve();
  private afterOther = false;

  override send(message: JSONRPCMessage): Promise<void> {
    const answer = !('method' in message);
    const wait = answer && this.afterOther;
    this.afterOther = !answer;
    const sent = this.queue.then(async () => {
      if (wait) await sleep(READ_FIRST_MS);
      await super.send(message);
    });
    this.queue = sent.catch(() => {});
    return sent;
  }
}

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
  const transport = new ReadFirstStdioTransport(io.stdin, io.stdout);
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
