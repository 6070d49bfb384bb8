/**
 * Real OAuth peers for the sign-in tests:
 * - the SDK's own OAuth-protected example server (`simpleStreamableHttp.js --oauth [--oauth-strict]`, its demo
 *   authorization server on MCP_AUTH_PORT), as a child process;
 * - a browser stand-in: follows a sign-in URL through the authorization server's redirects with a real HTTP client;
 * - an SDK client that signs in to a server directly (its own OAuthClientProvider), to compare answers with.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { closedPort } from './ports.js';

const SDK_ROOT = dirname(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/client/index.js')));
export const DEMO_SERVER = join(SDK_ROOT, 'examples/server/simpleStreamableHttp.js');

export interface DemoOAuthServer {
  /** http://localhost:<port>/mcp: the URL the demo's authorization server binds its tokens to (--oauth-strict) */
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** The SDK's example server with its demo authorization server, on free ports; resolves once both listen. */
export async function startDemoOAuthServer(options: { strict?: boolean } = {}): Promise<DemoOAuthServer> {
  const [port, authPort] = [await closedPort(), await closedPort()];
  const args = [DEMO_SERVER, '--oauth', ...(options.strict ? ['--oauth-strict'] : [])];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo OAuth server did not start: ${output}`)), 15_000);
    const check = (): void => {
      if (/Authorization Server listening/.test(output) && /MCP Streamable HTTP Server listening/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', () => reject(new Error(`the demo OAuth server exited: ${output}`)));
  });
  return {
    url: `http://localhost:${port}/mcp`,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface FollowedSignIn {
  /** the last answer: the proxy's loopback page (or the authorization server's error page) */
  status: number;
  body: string;
  /** the redirect to the loopback callback, as the authorization server made it (its code and state) */
  callback?: URL;
}

/**
 * What a browser does with a sign-in URL: GET it, follow each redirect (the authorization server's "login", then the
 * redirect to the proxy's 127.0.0.1 callback). `rewrite` may change the callback URL before it is followed (a forged
 * state); `stopAtCallback` keeps it unfollowed (a client that reads the code itself).
 */
export async function followSignIn(
  start: string,
  options: { rewrite?: (callback: URL) => URL; stopAtCallback?: boolean } = {},
): Promise<FollowedSignIn> {
  let url = start;
  let callback: URL | undefined;
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      let next = new URL(location, url);
      if (next.pathname === '/callback' && /^(127\.0\.0\.1|localhost)$/.test(next.hostname)) {
        callback = next;
        if (options.stopAtCallback) return { status: res.status, body: '', callback };
        if (options.rewrite) next = options.rewrite(next);
      }
      url = next.href;
      continue;
    }
    return { status: res.status, body: await res.text(), callback };
  }
  throw new Error(`more than 10 redirects from ${start}`);
}

/** An in-memory OAuthClientProvider of the test's own (the SDK client that signs in directly). */
class DirectProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'direct test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = (): OAuthClientInformationMixed | undefined => this.client;
  saveClientInformation = (client: OAuthClientInformationMixed): void => void (this.client = client);
  tokens = (): OAuthTokens | undefined => this.stored;
  saveTokens = (tokens: OAuthTokens): void => void (this.stored = tokens);
  redirectToAuthorization = (url: URL): void => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string): void => void (this.verifier = verifier);
  codeVerifier = (): string => this.verifier;
}

/** An SDK client signed in to `url` on its own (no proxy): the reference answers come from it. */
export async function signedInClient(url: string): Promise<Client> {
  const provider = await signInDirectly(url);
  const client = new Client({ name: 'direct', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
}

/** The access token an SDK client gets signing in to `url` on its own: what an agent bringing its own Authorization sends. */
export async function ownAccessToken(url: string): Promise<string> {
  return (await signInDirectly(url)).stored?.access_token as string;
}

async function signInDirectly(url: string): Promise<DirectProvider> {
  const provider = new DirectProvider();
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const attempt = new Client({ name: 'direct', version: '1' });
  await attempt.connect(first).catch((error: unknown) => {
    if (!(error instanceof UnauthorizedError)) throw error;
  });
  const { callback } = await followSignIn((provider.authorizationUrl as URL).href, { stopAtCallback: true });
  await first.finishAuth(callback?.searchParams.get('code') as string);
  await attempt.close();
  return provider;
}
