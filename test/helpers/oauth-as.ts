/**
 * An OAuth-protected MCP server on the SDK's own server-side OAuth stack (`mcpAuthRouter`: metadata, registration,
 * authorization, token endpoints with client authentication; `requireBearerAuth` on the MCP endpoint), with a provider
 * of the test's own that does what the SDK's demo provider does not: short-lived tokens, rotating refresh tokens, an
 * OIDC-style id_token naming the user, a pre-registered confidential client, a tool that needs a scope the first
 * sign-in does not grant (403 insufficient_scope: step-up). It records every secret it hands out or receives, so a
 * test can grep what mcp-rewind wrote for them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';

export interface TestAuthServerOptions {
  /** access token lifetime (s) */
  tokenLifetimeS?: number;
  /** a confidential client registered beforehand: its id, secret and the one redirect URI it may use */
  preRegistered?: { clientId: string; clientSecret: string; redirectUri: string };
  /** the user the id_token names */
  user?: string;
}

/** Everything secret this server issued or received. */
export interface Secrets {
  accessTokens: string[];
  refreshTokens: string[];
  codes: string[];
  verifiers: string[];
  clientSecrets: string[];
}

export interface TestAuthServer {
  /** http://localhost:<port>/mcp */
  url: string;
  secrets: Secrets;
  /** refresh grants answered */
  refreshes: number;
  /** MCP requests refused with 401 (no token, an expired or unknown one) */
  refused: number;
  /** authorization requests seen (their scope and resource) */
  authorizations: Array<{ scopes: string[]; resource?: string }>;
  close(): Promise<void>;
}

/** what the handler uses of express's request and response (express's types are not installed: the SDK brings express itself) */
type McpRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };
type McpResponse = ServerResponse & { status(code: number): { json(body: unknown): void } };

const READ = 'mcp:read';
const WRITE = 'mcp:write';

class TestProvider implements OAuthServerProvider {
  readonly skipLocalPkceValidation = true; // the verifier reaches exchangeAuthorizationCode: checked (and recorded) here
  readonly secrets: Secrets = { accessTokens: [], refreshTokens: [], codes: [], verifiers: [], clientSecrets: [] };
  refreshes = 0;
  readonly authorizations: Array<{ scopes: string[]; resource?: string }> = [];
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: string; params: AuthorizationParams }>();
  private readonly tokens = new Map<string, AuthInfo>();
  private readonly refreshTokens = new Map<string, { client: string; scopes: string[]; resource?: URL }>();

  constructor(private readonly options: TestAuthServerOptions) {
    const pre = options.preRegistered;
    if (pre) {
      this.clients.set(pre.clientId, {
        client_id: pre.clientId,
        client_secret: pre.clientSecret,
        redirect_uris: [pre.redirectUri],
        token_endpoint_auth_method: 'client_secret_post',
      });
      this.secrets.clientSecrets.push(pre.clientSecret);
    }
  }

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        const full = {
          ...client,
          client_id: randomUUID(),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        } as OAuthClientInformationFull;
        this.clients.set(full.client_id, full);
        if (full.client_secret) this.secrets.clientSecrets.push(full.client_secret);
        return full;
      },
    };
  }

  /** "logs in" at once, as the SDK's demo does: the redirect carries the code and the client's state */
  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: { redirect(url: string): void },
  ): Promise<void> {
    this.authorizations.push({ scopes: params.scopes ?? [], resource: params.resource?.href });
    const code = randomUUID();
    this.secrets.codes.push(code);
    this.codes.set(code, { client: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    return this.codes.get(code)?.params.codeChallenge ?? '';
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    verifier?: string,
  ): Promise<OAuthTokens> {
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || issued.client !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    if (verifier) this.secrets.verifiers.push(verifier);
    if (!verifier || createHash('sha256').update(verifier).digest('base64url') !== issued.params.codeChallenge)
      throw new InvalidGrantError('code_verifier does not match the challenge');
    return this.issue(client.client_id, issued.params.scopes ?? [], issued.params.resource);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refreshTokens.get(refreshToken);
    this.refreshTokens.delete(refreshToken); // rotated, as OAuth 2.1 asks for public clients
    if (!grant || grant.client !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refreshes++;
    return this.issue(client.client_id, grant.scopes, grant.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.tokens.get(token);
    if (!info) throw new InvalidTokenError('unknown token');
    return info;
  }

  private issue(client: string, scopes: string[], resource?: URL): OAuthTokens {
    const lifetime = this.options.tokenLifetimeS ?? 3600;
    const access = randomUUID();
    const refresh = randomUUID();
    this.secrets.accessTokens.push(access);
    this.secrets.refreshTokens.push(refresh);
    this.tokens.set(access, {
      token: access,
      clientId: client,
      scopes,
      expiresAt: Math.floor(Date.now() / 1000) + lifetime,
      resource,
    });
    this.refreshTokens.set(refresh, { client, scopes, resource });
    const claims = Buffer.from(JSON.stringify({ sub: 'user-1', name: this.options.user ?? 'Ada Lovelace' })).toString(
      'base64url',
    );
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: lifetime,
      refresh_token: refresh,
      scope: scopes.join(' '),
      id_token: `e30.${claims}.`,
    };
  }
}

/** The MCP server behind the bearer check: greet (any token), write-note (needs mcp:write: 403 insufficient_scope). */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'oauth-test-server', version: '1.0.0' });
  server.registerTool('greet', { inputSchema: { name: z.string() } }, async ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}!` }],
  }));
  server.registerTool('write-note', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `noted: ${text}` }],
  }));
  return server;
}

type App = ReturnType<typeof createMcpExpressApp>;

async function listen(app: App): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
  });
}

export async function startTestAuthServer(options: TestAuthServerOptions = {}): Promise<TestAuthServer> {
  const provider = new TestProvider(options);
  const asApp = createMcpExpressApp({ host: 'localhost' });
  const as = await listen(asApp);
  const issuerUrl = new URL(`http://localhost:${as.port}/`);
  asApp.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      scopesSupported: [READ, WRITE],
      clientRegistrationOptions: { clientSecretExpirySeconds: 0 },
    }),
  );

  const mcpApp = createMcpExpressApp({ host: 'localhost' });
  const mcp = await listen(mcpApp);
  const url = new URL(`http://localhost:${mcp.port}/mcp`);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(url);
  mcpApp.use(
    mcpAuthMetadataRouter({
      oauthMetadata: createOAuthMetadata({ provider, issuerUrl, scopesSupported: [READ, WRITE] }),
      resourceServerUrl: url,
      scopesSupported: [READ],
    }),
  );
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl, expectedResource: url });
  let refused = 0;
  mcpApp.use((_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    res.once('finish', () => (refused += res.statusCode === 401 ? 1 : 0));
    next();
  });
  mcpApp.all('/mcp', bearer, async (req: McpRequest, res: McpResponse) => {
    const body = req.body as { method?: string; params?: { name?: string } } | undefined;
    if (body?.method === 'tools/call' && body.params?.name === 'write-note' && !req.auth?.scopes.includes(WRITE)) {
      res.setHeader(
        'www-authenticate',
        `Bearer error="insufficient_scope", scope="${READ} ${WRITE}", resource_metadata="${resourceMetadataUrl}"`,
      );
      res.status(403).json({ error: 'insufficient_scope', error_description: 'writing notes needs mcp:write' });
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  return {
    url: url.href,
    secrets: provider.secrets,
    get refreshes() {
      return provider.refreshes;
    },
    get refused() {
      return refused;
    },
    authorizations: provider.authorizations,
    close: async () => {
      for (const { server } of [as, mcp]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
