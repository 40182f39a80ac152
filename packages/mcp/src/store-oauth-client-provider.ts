import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { type FetchFunction, isLegalHeaderValue, omitUndefined } from '@toolbus/spec';
import { inProcessMcpRefreshLock, type McpRefreshLock, mcpRefreshLockKey } from './mcp-refresh-lock.ts';
import type { McpOAuthRecord, McpTokenStore } from './mcp-token-store.ts';

/** Options for {@link StoreOAuthClientProvider}. */
export interface StoreOAuthClientProviderOptions {
  readonly store: McpTokenStore;
  readonly userId: string;
  readonly serverId: string;
  /** The application's OAuth callback URL (registered at dynamic client registration). */
  readonly redirectUrl: string;
  readonly clientName?: string | undefined;
  readonly scope?: string | undefined;
  /** Pre-registered client credentials (used when no registration is stored). */
  readonly client?: { readonly id: string; readonly secret?: string } | undefined;
  /** Called with the authorization URL when the user must (re)authorize; the application sends the user there. */
  readonly onAuthorizationRequired?: ((authorizationUrl: URL) => void | Promise<void>) | undefined;
  /** The clock, in ms since epoch (`Date.now` by default): tells whether an access token has expired. */
  readonly now?: () => number;
  /**
   * Serialises token refreshes of this user on this server (default: within this process). Replicas sharing one
   * token store pass a lock they share, so one refresh token is spent once.
   */
  readonly refreshLock?: McpRefreshLock | undefined;
  /**
   * This application's Client ID Metadata Document URL (https). Where the authorization server advertises
   * `client_id_metadata_document_supported`, the SDK uses it as the client id instead of registering.
   */
  readonly clientMetadataUrl?: string | undefined;
  /** The server's configuration fingerprint, stored with the `state` of an authorization that starts. */
  readonly configFingerprint?: string | undefined;
  /**
   * Called with the credentials this provider hands the SDK or stores (tokens, the client secret), so that what
   * relays the server's own words (its logs) can mask them.
   */
  readonly onCredentials?: ((values: readonly string[]) => void) | undefined;
}

/** How many rejected access tokens a provider remembers (a connection sees one at a time; a few are plenty). */
const rememberedRejections = 8;

/**
 * An access token counts as expired this long before its stated expiry, so a request does not leave with a
 * token that lapses on the way.
 */
const expiryMarginMs = 30_000;

/** True when the tokens say when they expire (`expires_in`, from when they were saved) and that time has come. */
function isExpired(tokens: OAuthTokens, savedAt: number | undefined, now: number): boolean {
  const expiresIn = tokens.expires_in;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn)) return false;
  // Saved without a time (older records): the age is unknown, so treat the token as expired only if it was
  // issued already expired.
  if (savedAt === undefined) return expiresIn <= 0;
  return now >= savedAt + expiresIn * 1000 - expiryMarginMs;
}

/**
 * The SDK's `OAuthClientProvider`, backed by an {@link McpTokenStore}: the SDK drives discovery, registration, PKCE
 * and refresh; this only keeps their results per user per server.
 */
export class StoreOAuthClientProvider implements OAuthClientProvider {
  readonly #options: StoreOAuthClientProviderOptions;
  /** Access tokens the MCP server answered 401 to, through {@link StoreOAuthClientProvider.lockingRefreshes}. */
  readonly #rejected: string[] = [];
  /** The last authorization URL the SDK produced (when `connect` needs the user). */
  lastAuthorizationUrl: URL | undefined;
  /** The Client ID Metadata Document URL, when the application serves one (the SDK reads it). */
  readonly clientMetadataUrl?: string;

  constructor(options: StoreOAuthClientProviderOptions) {
    this.#options = options;
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return omitUndefined({
      client_name: this.#options.clientName ?? 'toolbus',
      redirect_uris: [this.#options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      scope: this.#options.scope,
    });
  }

  /** Passes the credential values among `fields` to {@link StoreOAuthClientProviderOptions.onCredentials}. */
  #announce(fields: {
    readonly access_token?: unknown;
    readonly refresh_token?: unknown;
    readonly client_secret?: unknown;
  }): void {
    const values = [fields.access_token, fields.refresh_token, fields.client_secret];
    this.#options.onCredentials?.(values.filter((value): value is string => typeof value === 'string'));
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  async #load(): Promise<McpOAuthRecord> {
    return (await this.#options.store.load(this.#options.userId, this.#options.serverId)) ?? {};
  }

  async #update(change: (record: McpOAuthRecord) => McpOAuthRecord): Promise<void> {
    const record = change(await this.#load());
    await this.#options.store.save(this.#options.userId, this.#options.serverId, record);
  }

  async state(): Promise<string> {
    const state = randomToken();
    const pendingConfig = this.#options.configFingerprint;
    await this.#update((record) => {
      const { pendingConfig: _previous, ...rest } = record;
      return { ...rest, pendingState: state, ...omitUndefined({ pendingConfig }) };
    });
    return state;
  }

  /**
   * The client registration for the authorization server `ctx.issuer` names: the stored one only when it was made
   * with that server (SEP-2352: a registration, like a token, never travels to another authorization server), or
   * the pre-registered client while nothing is stored. A stored registration from another server makes the SDK
   * register anew (or use the metadata document URL), and {@link saveClientInformation} then replaces it.
   */
  async clientInformation(ctx?: { issuer?: string }): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await this.#load()).clientInformation;
    this.#announce({ client_secret: stored?.client_secret ?? this.#options.client?.secret });
    if (stored !== undefined) {
      const issuer = (stored as { issuer?: unknown }).issuer;
      if (ctx?.issuer !== undefined && typeof issuer === 'string' && !sameIssuer(issuer, ctx.issuer))
        return undefined;
      return stored;
    }
    const client = this.#options.client;
    if (client === undefined) return undefined;
    return omitUndefined({ client_id: client.id, client_secret: client.secret });
  }

  /**
   * Stores the registration (stamped by the SDK with its authorization server). A registration with another
   * authorization server than the stored tokens' drops those tokens: they belong to the server being left.
   */
  async saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    const issuer = (clientInformation as { issuer?: unknown }).issuer;
    await this.#update((record) => {
      const tokensIssuer = (record.tokens as { issuer?: unknown } | undefined)?.issuer;
      const migrated =
        typeof issuer === 'string' && typeof tokensIssuer === 'string' && !sameIssuer(issuer, tokensIssuer);
      if (!migrated) return { ...record, clientInformation };
      const { tokens: _tokens, tokensSavedAt: _saved, ...rest } = record;
      return { ...rest, clientInformation };
    });
  }

  /**
   * The stored tokens, unless they cannot be used: an access token past its expiry with no refresh token to renew
   * it (sending it would only leak it to a server that refuses it; the SDK then asks the user to authorize
   * again), or an access token or type with a byte HTTP forbids in a header (the SDK's request would fail with a
   * TypeError on every call instead of asking for a new grant).
   */
  async tokens(): Promise<OAuthTokens | undefined> {
    const record = await this.#load();
    const tokens = record.tokens;
    if (tokens === undefined) return undefined;
    if (!isLegalHeaderValue(tokens.access_token) || !isLegalHeaderValue(tokens.token_type ?? 'Bearer'))
      return undefined;
    const hasRefresh = typeof tokens.refresh_token === 'string' && tokens.refresh_token !== '';
    if (!hasRefresh && isExpired(tokens, record.tokensSavedAt, this.#now())) return undefined;
    this.#announce(tokens);
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#announce(tokens);
    await this.#update((record) => {
      const { codeVerifier: _verifier, pendingState: _state, pendingConfig: _config, ...rest } = record;
      return { ...rest, tokens, tokensSavedAt: this.#now() };
    });
  }

  /**
   * Wraps the fetch the SDK's requests go through (the MCP server's and the authorization server's) so that a
   * token refresh runs under the refresh lock. The SDK refreshes by itself when the server answers 401; under the
   * lock this re-reads the stored tokens first: when another replica (or connection) refreshed meanwhile, its
   * tokens are handed to the SDK as the token endpoint's answer and no refresh request is sent; otherwise the
   * refresh goes out and its tokens are stored before the lock is released, so the next holder finds them.
   */
  lockingRefreshes(fetch: FetchFunction): FetchFunction {
    return async (input, init) => {
      const refreshToken = refreshGrantToken(init?.body);
      if (refreshToken === undefined) {
        const response = await fetch(input, init);
        if (response.status === 401 && this.#noteRejected(input, init)) await this.#forgetDiscovery();
        return response;
      }
      const key = mcpRefreshLockKey(this.#options.userId, this.#options.serverId);
      return (this.#options.refreshLock ?? inProcessMcpRefreshLock)(key, async () => {
        const record = await this.#load();
        const stored = record.tokens;
        if (stored !== undefined && this.#refreshedElsewhere(stored, record.tokensSavedAt, refreshToken)) {
          return tokenResponse(stored, record.tokensSavedAt, this.#now());
        }
        const response = await fetch(input, init);
        if (response.ok) {
          const parsed = asOAuthTokens(
            await response
              .clone()
              .json()
              .catch(() => undefined),
          );
          if (parsed !== undefined) {
            // As the SDK will save them (a server that does not rotate keeps the old refresh token).
            await this.saveTokens(
              omitUndefined({ refresh_token: refreshToken, ...parsed, issuer: stored?.issuer }),
            );
          }
        }
        return response;
      });
    };
  }

  /**
   * True when the stored tokens are newer than the ones this refresh would renew: their refresh token is not the
   * one the SDK is about to spend, or their access token is not one the server rejected here. Expired tokens are
   * never handed on.
   */
  #refreshedElsewhere(stored: OAuthTokens, savedAt: number | undefined, refreshToken: string): boolean {
    if (!isLegalHeaderValue(stored.access_token) || isExpired(stored, savedAt, this.#now())) return false;
    if (stored.refresh_token !== undefined && stored.refresh_token !== refreshToken) return true;
    return this.#rejected.length > 0 && !this.#rejected.includes(stored.access_token);
  }

  /** Remembers the rejected access token; true when the request carried one (a bearer or DPoP token). */
  #noteRejected(input: Parameters<FetchFunction>[0], init: Parameters<FetchFunction>[1]): boolean {
    const authorization = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined),
    ).get('authorization');
    const token = authorization?.match(/^(?:bearer|dpop)\s+(.+)$/i)?.[1];
    if (token === undefined) return false;
    if (this.#rejected.includes(token)) return true;
    this.#rejected.push(token);
    if (this.#rejected.length > rememberedRejections) this.#rejected.shift();
    return true;
  }

  /**
   * The MCP server refused a token it accepted before, or one it never knew: it may have moved to another
   * authorization server (SEP-2352). The cached discovery would send the SDK straight back to the old one, so it
   * is dropped and the protected resource's metadata is read again; a new authorization server there then gets
   * a registration of its own (see {@link clientInformation}).
   */
  async #forgetDiscovery(): Promise<void> {
    await this.#update((record) => {
      const { discoveryState: _discovery, ...rest } = record;
      return rest;
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.lastAuthorizationUrl = authorizationUrl;
    await this.#options.onAuthorizationRequired?.(authorizationUrl);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.#update((record) => ({ ...record, codeVerifier }));
  }

  async codeVerifier(): Promise<string> {
    const { codeVerifier } = await this.#load();
    if (codeVerifier === undefined)
      throw new Error('No OAuth authorization is in progress for this MCP server');
    return codeVerifier;
  }

  async saveDiscoveryState(discoveryState: OAuthDiscoveryState): Promise<void> {
    await this.#update((record) => ({ ...record, discoveryState }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load()).discoveryState;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all') {
      await this.#options.store.clear(this.#options.userId, this.#options.serverId);
      return;
    }
    await this.#update((record) => {
      const {
        tokens: _tokens,
        tokensSavedAt: _saved,
        clientInformation: _client,
        codeVerifier: _verifier,
        discoveryState: _discovery,
        ...rest
      } = record;
      return {
        ...rest,
        ...(scope === 'tokens' || record.tokens === undefined
          ? {}
          : { tokens: record.tokens, tokensSavedAt: record.tokensSavedAt ?? 0 }),
        ...(scope === 'client' || record.clientInformation === undefined
          ? {}
          : { clientInformation: record.clientInformation }),
        ...(scope === 'verifier' || record.codeVerifier === undefined
          ? {}
          : { codeVerifier: record.codeVerifier }),
        ...(scope === 'discovery' || record.discoveryState === undefined
          ? {}
          : { discoveryState: record.discoveryState }),
      };
    });
  }
}

/**
 * The refresh token of a `grant_type=refresh_token` token request, as the SDK sends it: a form body object. A
 * string body is never read as one: an MCP request is a JSON string that a tool argument could make parse as a
 * form (`…&grant_type=refresh_token&…`), and answering it with the stored tokens would hand them to the model.
 */
function refreshGrantToken(body: unknown): string | undefined {
  if (!(body instanceof URLSearchParams) || body.get('grant_type') !== 'refresh_token') return undefined;
  return body.get('refresh_token') ?? undefined;
}

/**
 * A token endpoint's JSON when it has the fields the SDK requires of one (`access_token` and `token_type`
 * strings), as tokens; anything else is left for the SDK to reject.
 */
function asOAuthTokens(json: unknown): OAuthTokens | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const record = json as Record<string, unknown>;
  if (typeof record.access_token !== 'string' || typeof record.token_type !== 'string') return undefined;
  if (record.refresh_token !== undefined && typeof record.refresh_token !== 'string') return undefined;
  if (record.expires_in !== undefined && typeof record.expires_in !== 'number') return undefined;
  return record as unknown as OAuthTokens;
}

/** A token endpoint's answer carrying stored tokens (their lifetime counted from now). */
function tokenResponse(tokens: OAuthTokens, savedAt: number | undefined, now: number): Response {
  const { issuer: _issuer, ...fields } = tokens as OAuthTokens & { issuer?: string };
  const expiresIn =
    typeof tokens.expires_in === 'number' && savedAt !== undefined
      ? Math.max(0, Math.floor(tokens.expires_in - (now - savedAt) / 1000))
      : tokens.expires_in;
  return new Response(JSON.stringify(omitUndefined({ ...fields, expires_in: expiresIn })), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}

/** RFC 8414 issuer identity, tolerating one trailing `/` (as the SDK compares them). */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

function randomToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
