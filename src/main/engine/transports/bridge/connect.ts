import { createInterface } from 'node:readline';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Log } from '../../log.js';
import { redactUrl } from '../../redact.js';
import { fullEnvironment } from '../child-env.js';
import { ChildStdioTransport } from '../stdio-child.js';

export type BridgeSpec =
  | { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: 'sse'; url: string; headers?: Record<string, string> };

/** How long starting a child or connecting to a legacy SSE server may take. */
const START_TIMEOUT_MS = 10_000;
/** How many of the children's last stderr lines `printed()` keeps. */
const PRINTED_LINES = 20;

/** The upstream in log lines and errors: the command's program, or the URL without credentials. */
export function describe(spec: BridgeSpec): string {
  return spec.kind === 'stdio' ? `process "${spec.command}"` : redactUrl(spec.url);
}

/**
 * Credentials in a legacy SSE URL (user:password@) cannot go through fetch/EventSource: they become a Basic
 * Authorization header on every request instead.
 */
function sseTarget(spec: Extract<BridgeSpec, { kind: 'sse' }>): { url: URL; headers: Record<string, string> } {
  const url = new URL(spec.url);
  const headers: Record<string, string> = { ...spec.headers };
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'authorization'))
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, headers };
}

/**
 * A connection to the real server, not started yet: a child (its stderr lines go to `printed` and the log as they
 * come, from before it starts) or a legacy SSE connection.
 */
export function upstreamTransport(spec: BridgeSpec, printed: string[], log: Log, label: () => string): Transport {
  if (spec.kind === 'sse') {
    const { url, headers } = sseTarget(spec);
    return new SSEClientTransport(url, { requestInit: { headers } });
  }
  const stdio = new ChildStdioTransport({
    command: spec.command,
    args: spec.args,
    env: fullEnvironment(spec.env),
    cwd: spec.cwd,
  });
  createInterface({ input: stdio.stderr }).on('line', (line) => {
    if (printed.push(line) > PRINTED_LINES) printed.shift();
    log(`upstream ${label()}: ${line}`, 'warn');
  });
  return stdio;
}

/** Starts the connection; a legacy server that never sends its endpoint event must not hold the initialize forever. */
export async function startWithin(client: Transport, spec: BridgeSpec): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const what = spec.kind === 'sse' ? 'endpoint event' : 'process';
    timer = setTimeout(() => reject(new Error(`no ${what} within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.start(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
