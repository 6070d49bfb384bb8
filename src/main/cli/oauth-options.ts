import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SignInInfo } from '../../shared/sign-in.js';
import { UsageError } from '../engine/errors.js';
import type { GivenClient } from '../engine/upstream/oauth/provider.js';
import { userDataDir } from '../web/user-data.js';

/** The sign-in flags (light: the sign-in itself is oauth-sign-in.ts's, loaded when an upstream may need one). */

/** The environment variable a client secret may come in (never a flag: argv shows in `ps`). */
export const CLIENT_SECRET_ENV = 'MCP_REWIND_OAUTH_CLIENT_SECRET';

export interface OAuthCliOptions {
  /** false with --no-oauth: a 401 reaches the client as today */
  enabled: boolean;
  /** false with --no-open: the sign-in URL is printed only */
  open: boolean;
  client?: GivenClient;
  timeoutMs: number;
  callbackPort?: number;
  dataDir: string;
}

/** The sign-in flags of the proxy and of `auth login`. */
export function addOAuthOptions(command: Command, withToggle: boolean): Command {
  if (withToggle)
    command.option(
      '--no-oauth',
      'never sign in to the upstream: its 401 reaches the client, which may bring its own Authorization',
    );
  return command
    .option('--no-open', 'print the sign-in URL of an upstream that needs one, without opening the browser')
    .option(
      '--oauth-client-id <id>',
      "sign in with this client id (registered with the upstream's authorization server) instead of registering one",
    )
    .option(
      '--oauth-client-secret-file <file>',
      `the client secret of --oauth-client-id, read from a file (or the ${CLIENT_SECRET_ENV} variable; never a flag)`,
    )
    .option(
      '--oauth-callback-port <port>',
      'the 127.0.0.1 port of the sign-in redirect (default: the one registered last, else any free port)',
    )
    .option(
      '--sign-in-timeout <seconds>',
      'how long a sign-in waits for the browser; requests wait as long (default: 300)',
    );
}

/** The sign-in flags given on the command line (a mode without an upstream, replay, takes none of them). */
export function givenSignInFlags(raw: Record<string, unknown>): string[] {
  const given: [string, boolean][] = [
    ['--no-oauth', raw.oauth === false],
    ['--no-open', raw.open === false],
    ['--oauth-client-id', raw.oauthClientId !== undefined],
    ['--oauth-client-secret-file', raw.oauthClientSecretFile !== undefined],
    ['--oauth-callback-port', raw.oauthCallbackPort !== undefined],
    ['--sign-in-timeout', raw.signInTimeout !== undefined],
  ];
  return given.filter(([, isGiven]) => isGiven).map(([flag]) => flag);
}

/** Validates the sign-in flags; the data folder is MCP_REWIND_DATA_DIR's, or the platform's (user-data.ts). */
export function toOAuthOptions(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  dataDir = userDataDir(env),
): OAuthCliOptions {
  const timeout = String(raw.signInTimeout ?? '300');
  if (!/^\d+(\.\d+)?$/.test(timeout) || Number(timeout) <= 0)
    throw new UsageError(`--sign-in-timeout must be a positive number of seconds, got "${timeout}"`);
  const port = raw.oauthCallbackPort === undefined ? undefined : String(raw.oauthCallbackPort);
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535))
    throw new UsageError(`--oauth-callback-port must be an integer between 1 and 65535, got "${port}"`);
  const clientId = raw.oauthClientId as string | undefined;
  const secretFile = raw.oauthClientSecretFile as string | undefined;
  if (secretFile !== undefined && clientId === undefined)
    throw new UsageError('--oauth-client-secret-file needs --oauth-client-id');
  let clientSecret = env[CLIENT_SECRET_ENV] || undefined;
  if (secretFile !== undefined) {
    try {
      clientSecret = readFileSync(secretFile, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        `--oauth-client-secret-file ${secretFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return {
    enabled: raw.oauth !== false,
    open: raw.open !== false,
    client: clientId ? { clientId, ...(clientSecret ? { clientSecret } : {}) } : undefined,
    timeoutMs: Math.round(Number(timeout) * 1000),
    callbackPort: port === undefined ? undefined : Number(port),
    dataDir,
  };
}

/** One line of a sign-in's state (banners, `auth status`). */
export function describeSignIn(label: string, info: SignInInfo): string {
  switch (info.state) {
    case 'signed-in':
      return `signed in to ${label}${info.user ? ` as ${info.user}` : ''}${info.expiresAt ? ` (token until ${new Date(info.expiresAt).toISOString()})` : ''}`;
    case 'failed':
      return `sign-in to ${label} failed at ${info.step}: ${info.error}`;
    case 'required':
      return `${label} needs a sign-in${info.url ? `: open ${info.url}` : ''}`;
    case 'client':
      return `${label}: the client's own Authorization is passed through`;
    default:
      return `${label}: no sign-in`;
  }
}
