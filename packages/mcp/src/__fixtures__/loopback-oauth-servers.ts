// An OAuth 2.1 authorization server and an OAuth-protected MCP server, on two loopback origins, built from the
// SDK's own server-side auth helpers (`mcpAuthRouter`: metadata, dynamic client registration, authorize, token with
// PKCE; `requireBearerAuth`; protected-resource metadata). The authorize step approves at once (no login page).
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createLoopbackMcpHandler, type LoopbackTool, type RecordedRequest } from '../testing/loopback-mcp-server.ts';

/** An in-memory authorization server: what the SDK's handlers call. */
class LoopbackAuthorizationProvider implements OAuthServerProvider {
  readonly events: string[] = [];
  /** The `iss` the authorize step puts on the redirect (RFC 9207): none, this server's issuer, or another one. */
  issInRedirect: 'omit' | 'correct' | 'wrong' = 'omit';
  issuer = '';
  readonly #clients = new Map<string, OAuthClientInformationFull>();
  readonly #codes = new Map<string, { clientId: string; challenge: string }>();
  readonly #accessTokens = new Map<string, { clientId: string; expiresAt: number }>();
  readonly #refreshTokens = new Map<string, string>();

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (clientId) => this.#clients.get(clientId),
      registerClient: (client) => {
        const full = client as OAuthClientInformationFull;
        this.#clients.set(full.client_id, full);
        this.events.push('register');
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, response: unknown): Promise<void> {
    const code = randomUUID();
    this.#codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge });
    this.events.push('authorize');
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    if (this.issInRedirect !== 'omit') {
      target.searchParams.set('iss', this.issInRedirect === 'correct' ? this.issuer : 'https://mix-up.example');
    }
    (response as { redirect(status: number, url: string): void }).redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.#codes.get(code);
    if (entry === undefined) throw new InvalidGrantError('unknown code');
    return entry.challenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.#codes.get(code);
    if (entry === undefined || entry.clientId !== client.client_id) throw new InvalidGrantError('bad code');
    this.#codes.delete(code);
    this.events.push('token:authorization_code');
    return this.#issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    if (this.#refreshTokens.get(refreshToken) !== client.client_id) throw new InvalidGrantError('bad refresh token');
    this.#refreshTokens.delete(refreshToken);
    this.events.push('token:refresh_token');
    return this.#issue(client.client_id);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const entry = this.#accessTokens.get(token);
    if (entry === undefined) throw new InvalidTokenError('unknown or revoked token');
    return { token, clientId: entry.clientId, scopes: [], expiresAt: entry.expiresAt };
  }

  /** Makes every access token invalid (as expiry would): the next MCP request gets 401. */
  revokeAccessTokens(): void {
    this.#accessTokens.clear();
  }

  /** Revokes the whole grant (access and refresh tokens): only a new authorization by the user helps. */
  revokeGrants(): void {
    this.#accessTokens.clear();
    this.#refreshTokens.clear();
  }

  #issue(clientId: string): OAuthTokens {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    this.#accessTokens.set(accessToken, { clientId, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    this.#refreshTokens.set(refreshToken, clientId);
    return { access_token: accessToken, token_type: 'bearer', expires_in: 3600, refresh_token: refreshToken };
  }
}

/** The two running servers. */
export interface LoopbackOAuthServers {
  readonly mcpUrl: string;
  readonly authorizationServerUrl: string;
  readonly provider: LoopbackAuthorizationProvider;
  /** Every request the authorization server received. */
  readonly authorizationRequests: RecordedRequest[];
  /** Every request the MCP server received (metadata included). */
  readonly mcpRequests: RecordedRequest[];
  close(): Promise<void>;
}

// The SDK's helpers are express middleware; express ships no types here, so the app is used through this shape.
interface MiniApp {
  use(...handlers: unknown[]): void;
  all(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, callback: () => void): HttpServer;
}

async function listen(app: MiniApp): Promise<{ server: HttpServer; base: string }> {
  let server: HttpServer | undefined;
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', resolve);
  });
  if (server === undefined) throw new Error('not listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

type Middleware = (request: RecordedRequest & { originalUrl: string }, response: unknown, next: () => void) => void;

function recorder(into: RecordedRequest[]): Middleware {
  return (request, _response, next) => {
    into.push({ method: request.method, path: request.originalUrl, headers: { ...request.headers } });
    next();
  };
}

/** Starts the authorization server and the protected MCP server offering `tools`. */
export async function startLoopbackOAuthServers(
  tools: readonly LoopbackTool[],
  options: {
    /** Advertise `authorization_response_iss_parameter_supported` (RFC 9207) and send `iss` on the redirect. */
    readonly issParameter?: boolean;
  } = {},
): Promise<LoopbackOAuthServers> {
  const provider = new LoopbackAuthorizationProvider();
  const authorizationRequests: RecordedRequest[] = [];
  const mcpRequests: RecordedRequest[] = [];

  const authorizationApp = createMcpExpressApp() as unknown as MiniApp;
  authorizationApp.use(recorder(authorizationRequests));
  const authorization = await listen(authorizationApp);
  const issuerUrl = new URL(authorization.base);
  const oauthMetadata = {
    ...createOAuthMetadata({ provider, issuerUrl }),
    ...(options.issParameter ? { authorization_response_iss_parameter_supported: true } : {}),
  };
  provider.issuer = oauthMetadata.issuer;
  if (options.issParameter) {
    provider.issInRedirect = 'correct';
    // Ahead of the SDK's router, whose metadata has no field for it.
    authorizationApp.use(
      (request: { path: string }, response: { json(body: unknown): void }, next: () => void) => {
        if (request.path === '/.well-known/oauth-authorization-server') response.json(oauthMetadata);
        else next();
      },
    );
  }
  authorizationApp.use(mcpAuthRouter({ provider, issuerUrl }));

  const mcpApp = createMcpExpressApp() as unknown as MiniApp;
  mcpApp.use(recorder(mcpRequests));
  const resource = await listen(mcpApp);
  const mcpUrl = new URL(`${resource.base}/mcp`);
  const handler = createLoopbackMcpHandler(tools);
  mcpApp.use(
    mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: mcpUrl }),
  );
  mcpApp.all(
    '/mcp',
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    (request: Parameters<LoopbackMcpHandler['handle']>[0] & { body?: unknown }, response: Parameters<LoopbackMcpHandler['handle']>[1]) => {
      handler.handle(request, response, request.body).catch(() => response.end());
    },
  );

  return {
    mcpUrl: mcpUrl.href,
    authorizationServerUrl: authorization.base,
    provider,
    authorizationRequests,
    mcpRequests,
    async close() {
      await handler.close();
      for (const { server } of [authorization, resource]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

type LoopbackMcpHandler = ReturnType<typeof createLoopbackMcpHandler>;
