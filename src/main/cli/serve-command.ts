import { Command, Option } from 'commander';
import { join } from 'node:path';
import type { ServeOptions } from '../engine/serve.js';
import { userDataDir } from '../web/user-data.js';
import { UsageError } from '../engine/errors.js';
import { DEFAULT_UPSTREAM_MAX_TIME_S, DEFAULT_UPSTREAM_TIMEOUT_S } from '../../shared/upstream-limits.js';
import { numberFlag, upstreamLimitFlags } from './upstream-limits.js';
import { collect } from './repeatable.js';

/** `mcp-rewind serve`: flags, each defaulting to MiMCP's environment variable. */
export function buildServeProgram(env: NodeJS.ProcessEnv): Command {
  return (
    new Command('mcp-rewind serve')
      .description('REST-configured sessions (MiMCP-compatible API) with a token-gated MCP endpoint and per-tool rules')
      .helpOption('-h, --help', 'show this help')
      .option('--host <host>', 'address to listen on [MIMCP_HOST]', env.MIMCP_HOST ?? '127.0.0.1')
      .option('-p, --port <port>', 'port to listen on [MIMCP_PORT]', env.MIMCP_PORT ?? '8000')
      .option(
        '--upstream-timeout <seconds>',
        'per-call upstream timeout, restarted by each progress notification; 0: none [MIMCP_UPSTREAM_TIMEOUT_S]',
        env.MIMCP_UPSTREAM_TIMEOUT_S ?? String(DEFAULT_UPSTREAM_TIMEOUT_S),
      )
      .option(
        '--upstream-max-time <seconds>',
        'maximum total time of one upstream call, progress or not; 0: none [MIMCP_UPSTREAM_MAX_TIME_S]',
        env.MIMCP_UPSTREAM_MAX_TIME_S ?? String(DEFAULT_UPSTREAM_MAX_TIME_S),
      )
      .option(
        '--connect-timeout <seconds>',
        'upstream handshake timeout [MIMCP_UPSTREAM_CONNECT_TIMEOUT_S]',
        env.MIMCP_UPSTREAM_CONNECT_TIMEOUT_S ?? '15',
      )
      .option(
        '--max-recorded-calls <n>',
        'calls kept per session, oldest dropped [MIMCP_MAX_RECORDED_CALLS]',
        env.MIMCP_MAX_RECORDED_CALLS ?? '1000',
      )
      // no default from the environment here: --help would print the secret
      .option(
        '--api-token <token>',
        'bearer token required on /api/* [MIMCP_API_TOKEN; prefer the variable: flags show in ps]; default: a random token kept in the data folder',
      )
      .option(
        '--no-auth',
        'serve the REST API without a token (anyone who can reach the port can create sessions): not recommended',
      )
      .option(
        '--data-dir <dir>',
        "where the generated API token and the sessions' upstream sign-ins are kept [MCP_REWIND_DATA_DIR]",
      )
      .option(
        '--max-sessions <n>',
        'sessions held at once; more get 429 [MIMCP_MAX_SESSIONS]',
        env.MIMCP_MAX_SESSIONS ?? '200',
      )
      .option(
        '--max-rules-bytes <n>',
        "bytes of one session's rules (tools + instructions as JSON); more get 413",
        '262144',
      )
      .option(
        '--instructions <text>',
        'default instructions for sessions that give none [MIMCP_INSTRUCTIONS]',
        env.MIMCP_INSTRUCTIONS,
      )
      .option('-v, --verbose', 'log sessions, upstream connections and every exchange', false)
      .addOption(
        new Option('--allowed-host <name>', 'extra Host header value to accept; repeatable').argParser(collect),
      )
      .addOption(
        new Option('--allowed-origin <origin>', 'extra browser Origin to accept; repeatable').argParser(collect),
      )
  );
}

export function toServeOptions(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): ServeOptions & { verbose: boolean; tokenFile: string } {
  const apiToken = (raw.apiToken as string | undefined) || env.MIMCP_API_TOKEN || undefined;
  if (apiToken !== undefined && raw.auth === false)
    throw new UsageError('--no-auth and an API token (--api-token / MIMCP_API_TOKEN) contradict each other');
  return {
    host: String(raw.host),
    port: numberFlag('--port', String(raw.port), 0, 65535, true),
    ...upstreamLimitFlags(raw),
    connectTimeoutS: numberFlag('--connect-timeout', String(raw.connectTimeout), 0.001, 3_600),
    maxRecordedCalls: numberFlag('--max-recorded-calls', String(raw.maxRecordedCalls), 1, 10_000_000, true),
    apiToken,
    noAuth: raw.auth === false,
    tokenFile: join((raw.dataDir as string | undefined) || userDataDir(env), 'serve-api-token'),
    dataDir: (raw.dataDir as string | undefined) || userDataDir(env),
    maxSessions: numberFlag('--max-sessions', String(raw.maxSessions), 1, 100_000, true),
    maxRuleSetBytes: numberFlag('--max-rules-bytes', String(raw.maxRulesBytes), 1024, 64 * 1024 * 1024, true),
    instructions: raw.instructions as string | undefined,
    allowedHosts: raw.allowedHost as string[] | undefined,
    allowedOrigins: raw.allowedOrigin as string[] | undefined,
    verbose: Boolean(raw.verbose),
  };
}
