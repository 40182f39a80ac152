import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { isLegalHeaderValue, omitUndefined } from '@toolbus/spec';
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
}

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
  /** The last authorization URL the SDK produced (when `connect` needs the user). */
  lastAuthorizationUrl: URL | undefined;

  constructor(options: StoreOAuthClientProviderOptions) {
    this.#options = options;
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
    await this.#update((record) => ({ ...record, pendingState: state }));
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await this.#load()).clientInformation;
    if (stored !== undefined) return stored;
    const client = this.#options.client;
    if (client === undefined) return undefined;
    return omitUndefined({ client_id: client.id, client_secret: client.secret });
  }

  async saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    await this.#update((record) => ({ ...record, clientInformation }));
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
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#update((record) => {
      const { codeVerifier: _verifier, pendingState: _state, ...rest } = record;
      return { ...rest, tokens, tokensSavedAt: this.#now() };
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

function randomToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
