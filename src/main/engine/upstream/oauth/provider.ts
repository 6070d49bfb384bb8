import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type { SignInStep } from '../../../../shared/sign-in.js';
import type { StoredSignIn } from './credentials.js';

/** A step of the sign-in refused by the proxy itself (no PKCE, a resource that is not the upstream). */
export class StepError extends Error {
  constructor(
    readonly step: SignInStep,
    message: string,
  ) {
    super(message);
    this.name = 'StepError';
  }
}

/** The sign-in record a provider reads and updates (UpstreamSignIn keeps it, and writes it to the data folder). */
export interface SignInRecord {
  get(): StoredSignIn;
  update(patch: Partial<StoredSignIn>): Promise<void>;
}

/** One run of `auth()`: where the browser comes back, the state it must carry, and what the run produced. */
export interface AuthRun {
  redirectUrl: string;
  state: string;
  /** a new authorization is wanted (a step-up, a re-authorisation): the stored tokens are not offered for a refresh */
  fresh: boolean;
  /** a refresh, not a sign-in: a client `auth()` registers on the way (the old one was refused) is not kept */
  refreshOnly?: boolean;
  /** the page the browser must open, once `auth()` built it */
  authorizationUrl?: URL;
  /** the PKCE verifier: in memory only, for this run */
  verifier?: string;
}

/** A client id (and secret) given by the user instead of dynamic registration. */
export interface GivenClient {
  clientId: string;
  clientSecret?: string;
}

/**
 * mcp-rewind's OAuthClientProvider for the SDK's `auth()` (client/auth.js does discovery, registration, PKCE, the
 * token exchange and refresh): it keeps the client and the tokens in the upstream's sign-in record, the PKCE verifier
 * in memory, and hands the authorization URL to the run instead of opening anything. One provider per run.
 */
export class RewindOAuthProvider implements OAuthClientProvider {
  constructor(
    private readonly upstream: string,
    private readonly record: SignInRecord,
    readonly run: AuthRun,
    private readonly given?: GivenClient,
  ) {}

  get redirectUrl(): string {
    return this.run.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-rewind',
      redirect_uris: [this.run.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.run.state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.given)
      return {
        client_id: this.given.clientId,
        ...(this.given.clientSecret ? { client_secret: this.given.clientSecret } : {}),
      };
    const stored = this.record.get();
    // a client registered for another redirect (its port was taken) cannot use this one: registered again
    return stored.redirectUri === this.run.redirectUrl ? stored.client : undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.given || this.run.refreshOnly) return; // a given client is the user's to keep; a refresh registers nothing for good
    await this.record.update({ client, redirectUri: this.run.redirectUrl });
  }

  tokens(): OAuthTokens | undefined {
    return this.run.fresh ? undefined : this.record.get().tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const { id_token: idToken, ...kept } = tokens;
    await this.record.update({ tokens: kept, obtainedAt: Date.now(), user: userOf(idToken) ?? this.record.get().user });
  }

  redirectToAuthorization(url: URL): void {
    this.run.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.run.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.run.verifier) throw new StepError('token', 'no PKCE verifier for this sign-in');
    return this.run.verifier;
  }

  /** RFC 8707: the resource is the upstream's own URL; metadata naming another resource is refused. */
  async validateResourceURL(_serverUrl: string | URL, resource?: string): Promise<URL> {
    const own = resourceUrlFromServerUrl(this.upstream);
    if (resource && !checkResourceAllowed({ requestedResource: own, configuredResource: resource }))
      throw new StepError(
        'discovery',
        `the protected-resource metadata names the resource ${resource}, which is not ${own.href}`,
      );
    return own;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.run.verifier = undefined;
    else if (scope === 'discovery') await this.record.update({ discovery: undefined });
    else if (scope === 'tokens') await this.record.update({ tokens: undefined, obtainedAt: undefined });
    else if (scope === 'client') await this.record.update({ client: undefined, redirectUri: undefined });
    else
      await this.record.update({
        client: undefined,
        redirectUri: undefined,
        tokens: undefined,
        obtainedAt: undefined,
        discovery: undefined,
      });
  }

  /** Discovery's results are kept; an authorization server that does not advertise PKCE (S256) is refused, as the spec says. */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const metadata = state.authorizationServerMetadata;
    if (!metadata)
      throw new StepError(
        'discovery',
        `no authorization server metadata (RFC 8414 or OpenID discovery) at ${state.authorizationServerUrl}`,
      );
    if (!metadata.code_challenge_methods_supported?.includes('S256'))
      throw new StepError(
        'discovery',
        `the authorization server ${state.authorizationServerUrl} does not advertise PKCE with S256: refused`,
      );
    await this.record.update({ discovery: state });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record.get().discovery;
  }
}

/** Who signed in, from an OIDC id_token's claims (for display only: the token itself is not kept). */
export function userOf(idToken: string | undefined): string | undefined {
  const payload = idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const who = [claims.name, claims.preferred_username, claims.email, claims.sub].find(
      (c) => typeof c === 'string' && c !== '',
    );
    return typeof who === 'string' ? who.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}
