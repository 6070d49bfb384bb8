import { Command } from 'commander';
import { UsageError } from '../engine/errors.js';
import { canonicalUpstream, CredentialStore } from '../engine/upstream/oauth/credentials.js';
import { UpstreamSignIn } from '../engine/upstream/oauth/sign-in.js';
import { userDataDir } from '../web/user-data.js';
import { addOAuthOptions, describeSignIn, toOAuthOptions, type OAuthCliOptions } from './oauth-options.js';
import { reportSignIn } from './oauth-sign-in.js';

export interface AuthCliOptions {
  action: 'status' | 'login' | 'logout';
  url?: string;
  oauth: OAuthCliOptions;
}

/** `mcp-rewind auth status | login <url> | logout <url>`: the sign-ins kept in the data folder. */
export function buildAuthProgram(env: NodeJS.ProcessEnv = process.env): Command {
  const program = new Command('mcp-rewind auth')
    .description('the sign-ins mcp-rewind keeps for OAuth-protected upstreams (owner-only, in the data folder)')
    .helpOption('-h, --help', 'show this help')
    .argument('<action>', 'status | login | logout')
    .argument('[url]', 'the upstream MCP server URL (login, logout)')
    .option('--data-dir <dir>', 'the data folder whose sign-ins to use [MCP_REWIND_DATA_DIR]', env.MCP_REWIND_DATA_DIR);
  return addOAuthOptions(program, false);
}

export function toAuthOptions(program: Command, env: NodeJS.ProcessEnv = process.env): AuthCliOptions {
  const [action, url] = program.args;
  if (action !== 'status' && action !== 'login' && action !== 'logout')
    throw new UsageError(`auth: the action must be status, login or logout, got "${action}"`);
  if (action !== 'status') {
    if (!url) throw new UsageError(`auth ${action} needs the upstream's URL`);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new UsageError(`auth ${action}: not an http(s) URL: "${url}"`);
  }
  const raw = program.opts();
  return { action, url, oauth: toOAuthOptions(raw, env, (raw.dataDir as string | undefined) || userDataDir(env)) };
}

/** Runs one action; resolves with the exit status (0, or 1 when a sign-in failed). */
export async function runAuth(
  options: AuthCliOptions,
  out: (text: string) => void,
  log: (line: string) => void,
): Promise<number> {
  const store = new CredentialStore(options.oauth.dataDir);
  if (options.action === 'status') {
    const all = store.list();
    if (all.length === 0) out(`no sign-in kept in ${store.dir}\n`);
    for (const kept of all)
      out(
        `${describeSignIn(kept.upstream, new UpstreamSignIn(kept.upstream, { store }).info())}${kept.tokens?.refresh_token ? ', refreshable' : ''}\n`,
      );
    return 0;
  }
  const url = canonicalUpstream(options.url as string);
  if (options.action === 'logout') {
    out((await store.remove(url)) ? `signed out of ${url}\n` : `no sign-in kept for ${url}\n`);
    return 0;
  }
  const signIn = new UpstreamSignIn(url, {
    store,
    client: options.oauth.client,
    callbackPort: options.oauth.callbackPort,
    timeoutMs: options.oauth.timeoutMs,
  });
  reportSignIn(signIn, options.oauth, log);
  try {
    await signIn.signIn();
  } catch (error) {
    log((error as Error).message);
    return 1;
  }
  out(`${describeSignIn(url, signIn.info())}\n`);
  return 0;
}
