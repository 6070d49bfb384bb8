import { Command, Option } from 'commander';
import type { ServeOptions } from '../engine/serve.js';
import { UsageError } from './options.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `mcp-rewind serve`: flags, each defaulting to MiMCP's environment variable. */
export function buildServeProgram(env: NodeJS.ProcessEnv): Command {
  return new Command('mcp-rewind serve')
    .description('REST-configured sessions (MiMCP-compatible API) with a token-gated MCP endpoint and per-tool rules')
    .helpOption('-h, --help', 'show this help')
    .option('--host <host>', 'address to listen on [MIMCP_HOST]', env.MIMCP_HOST ?? '127.0.0.1')
    .option('-p, --port <port>', 'port to listen on [MIMCP_PORT]', env.MIMCP_PORT ?? '8000')
    .option('--upstream-timeout <seconds>', 'per-call upstream timeout [MIMCP_UPSTREAM_TIMEOUT_S]', env.MIMCP_UPSTREAM_TIMEOUT_S ?? '60')
    .option('--connect-timeout <seconds>', 'upstream handshake timeout [MIMCP_UPSTREAM_CONNECT_TIMEOUT_S]', env.MIMCP_UPSTREAM_CONNECT_TIMEOUT_S ?? '15')
    .option('--max-recorded-calls <n>', 'calls kept per session, oldest dropped [MIMCP_MAX_RECORDED_CALLS]', env.MIMCP_MAX_RECORDED_CALLS ?? '1000')
    // no default from the environment here: --help would print the secret
    .option('--api-token <token>', 'bearer token required on /api/* [MIMCP_API_TOKEN; prefer the variable: flags show in ps]')
    .option('--instructions <text>', 'default instructions for sessions that give none [MIMCP_INSTRUCTIONS]', env.MIMCP_INSTRUCTIONS)
    .option('-v, --verbose', 'log sessions, upstream connections and every exchange', false)
    .addOption(new Option('--allowed-host <name>', 'extra Host header value to accept; repeatable').argParser(collect))
    .addOption(new Option('--allowed-origin <origin>', 'extra browser Origin to accept; repeatable').argParser(collect));
}

function number(name: string, value: string, min: number, max: number, integer = false): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${name} must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}, got "${value}"`);
  }
  return n;
}

export function toServeOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ServeOptions & { verbose: boolean } {
  return {
    host: String(raw.host),
    port: number('--port', String(raw.port), 0, 65535, true),
    upstreamTimeoutS: number('--upstream-timeout', String(raw.upstreamTimeout), 0.001, 86_400),
    connectTimeoutS: number('--connect-timeout', String(raw.connectTimeout), 0.001, 3_600),
    maxRecordedCalls: number('--max-recorded-calls', String(raw.maxRecordedCalls), 1, 10_000_000, true),
    apiToken: (raw.apiToken as string | undefined) || env.MIMCP_API_TOKEN || undefined,
    instructions: raw.instructions as string | undefined,
    allowedHosts: raw.allowedHost as string[] | undefined,
    allowedOrigins: raw.allowedOrigin as string[] | undefined,
    verbose: Boolean(raw.verbose),
  };
}
