import { createHash, timingSafeEqual } from 'node:crypto';
import { createStorageMcpTokenStore, mcpServerConfigFor, toMcpServerConfig } from '@toolbus/assembly';
import {
  completeMcpOAuth,
  connectMcpServer,
  McpAuthorizationRequiredError,
  type McpOAuthOptions,
  type McpRefreshLock,
} from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import type { McpServer, Storage } from '@toolbus/storage';
import type { Principal } from '../http/principal.ts';
import { notFoundError, ServerError } from '../http/server-error.ts';
import { safeReturnPath } from './mcp-oauth-return.ts';

/** The path the authorization server sends the browser back to (one for every MCP server: `state` tells them apart). */
export const MCP_OAUTH_CALLBACK_PATH = '/v1/mcp-oauth/callback';

/** A user's connection to one OAuth MCP server. */
export interface McpConnectionStatus {
  readonly serverId: string;
  readonly name: string;
  readonly authType: McpServer['authType'];
  /** True when tokens are stored for this user (they may still be refused by the server: connect again then). */
  readonly connected: boolean;
}

/** What starting a connection gives: connected already, or where to send the browser. */
export type McpConnectStart =
  | { readonly status: 'connected' }
  | { readonly status: 'authorization_required'; readonly authorizationUrl: string };

/** Options for {@link McpOAuthService}. */
export interface McpOAuthServiceOptions {
  readonly storage: Storage;
  /** The guarded fetch: discovery, registration and the token exchange go through it. */
  readonly fetch: typeof fetch;
  /** How long an authorization may take from start to callback (default 10 minutes). */
  readonly pendingLifetimeMs?: number;
  /** Serialises token refreshes across replicas (default: within this process). */
  readonly refreshLock?: McpRefreshLock;
  /**
   * toolbus's Client ID Metadata Document URL: the client id at authorization servers that support them (the
   * document lists the callback on the public origin, so connecting is then done from that origin).
   */
  readonly clientMetadataUrl?: string;
}

/**
 * The OAuth connect flow of MCP servers, per user: start (the SDK discovers, registers the client and builds the
 * authorization URL with PKCE and `state`), callback (the code exchanged, tokens stored encrypted for that user),
 * status and disconnect. The callback is reached by a cross-site redirect that carries no session cookie (it is
 * SameSite=Strict), so it is identified by its `state` (a 192-bit value known only to the server and the browser
 * of the user who started, valid once and for minutes) and by a secret of the starting browser, in a Lax cookie:
 * a victim who opens someone else's authorization URL lacks it, so their account is linked to no one's. The authorization in progress is kept in storage
 * (by the state's hash, so a copy of the database cannot finish one), so the callback works on any replica and
 * after a restart.
 */
export class McpOAuthService {
  readonly #options: McpOAuthServiceOptions;

  constructor(options: McpOAuthServiceOptions) {
    this.#options = options;
  }

  /** The OAuth MCP servers and whether the caller is connected to each. */
  async list(principal: Principal): Promise<readonly McpConnectionStatus[]> {
    const servers = await this.#options.storage.mcpServers.list();
    const statuses: McpConnectionStatus[] = [];
    for (const server of servers) statuses.push(await this.#statusOf(principal, server));
    return statuses;
  }

  async status(principal: Principal, serverId: string): Promise<McpConnectionStatus> {
    return this.#statusOf(principal, await this.#oauthServer(serverId));
  }

  /**
   * Starts connecting the caller: when stored tokens work, `connected`; otherwise the authorization URL to send the
   * browser to. `origin` is where the browser reaches this server (the redirect URL is built on it); `returnTo`, a
   * path on this server, is where the callback sends the browser at the end; `browserSecret`, the starting
   * browser's binding secret, must come back with the callback.
   */
  async connect(
    principal: Principal,
    serverId: string,
    input: {
      readonly origin: string;
      readonly returnTo?: string | undefined;
      readonly browserSecret: string;
    },
  ): Promise<McpConnectStart> {
    const server = await this.#oauthServer(serverId);
    const redirectUrl = new URL(MCP_OAUTH_CALLBACK_PATH, input.origin).href;
    const oauth = this.#oauthOptions(principal.user.id, redirectUrl);
    // The user's own header values ride along, as in chat: a server that also needs them answers 401 without them.
    const prepared = await mcpServerConfigFor(this.#options.storage, server, principal.user);
    if (!prepared.ok) {
      throw new ServerError({
        code: 'conflict',
        field: 'path.serverId',
        message: `path.serverId: cannot start connecting to "${server.name}": ${prepared.message}.`,
      });
    }
    try {
      const connection = await connectMcpServer(prepared.config, {
        fetch: this.#options.fetch,
        oauth,
        requestTimeoutMs: 30_000,
      });
      await connection.close();
      return { status: 'connected' };
    } catch (error) {
      if (!McpAuthorizationRequiredError.isInstance(error) || error.authorizationUrl === undefined) {
        throw new ServerError({
          code: 'conflict',
          field: 'path.serverId',
          message: `path.serverId: cannot start connecting to "${server.name}": ${messageOf(error)}`,
        });
      }
      const state = error.authorizationUrl.searchParams.get('state');
      if (!state) {
        throw new ServerError({
          code: 'conflict',
          field: 'path.serverId',
          message: `path.serverId: the authorization URL of "${server.name}" carries no state.`,
        });
      }
      await this.#options.storage.mcpServers.savePendingAuthorization({
        stateHash: hashState(state),
        userId: principal.user.id,
        serverId,
        redirectUrl,
        returnTo: safeReturnPath(input.returnTo),
        browserHash: hashState(input.browserSecret),
        expiresAt: new Date(Date.now() + (this.#options.pendingLifetimeMs ?? 10 * 60 * 1000)).toISOString(),
      });
      return { status: 'authorization_required', authorizationUrl: error.authorizationUrl.href };
    }
  }

  /**
   * Finishes an authorization from the callback's query: the `state` must be one this server handed out, unexpired
   * and not yet used (it is used up by this call, whatever its outcome), and `browserSecret` that of the browser
   * which started it; the code is exchanged (PKCE) and the tokens stored for the user who started. Returns where to
   * send the browser.
   */
  async complete(
    query: {
      readonly state?: string | undefined;
      readonly code?: string | undefined;
      readonly error?: string | undefined;
      readonly iss?: string | undefined;
    },
    browserSecret: string | undefined,
  ): Promise<{ readonly serverId: string; readonly returnTo: string }> {
    const pending =
      query.state === undefined
        ? undefined
        : await this.#options.storage.mcpServers.takePendingAuthorization(hashState(query.state));
    if (!pending || query.state === undefined) {
      throw new ServerError({
        code: 'forbidden',
        field: 'query.state',
        message: 'query.state: no authorization in progress matches this callback; connect again.',
      });
    }
    if (!sameHash(pending.browserHash, browserSecret)) {
      throw new ServerError({
        code: 'forbidden',
        field: 'query.state',
        message:
          'query.state: this authorization was started in another browser; connect again from this one (nothing was linked).',
      });
    }
    if (query.error !== undefined) {
      throw new ServerError({
        code: 'forbidden',
        field: 'query.error',
        message: `query.error: the authorization server refused the connection (${query.error.slice(0, 100)}).`,
      });
    }
    if (!query.code) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'query.code',
        message: 'query.code: the callback carries no authorization code.',
      });
    }
    const server = await this.#oauthServer(pending.serverId);
    try {
      await completeMcpOAuth(toMcpServerConfig(server), {
        fetch: this.#options.fetch,
        oauth: this.#oauthOptions(pending.userId, pending.redirectUrl),
        authorizationCode: query.code,
        state: query.state,
        ...omitUndefined({ issuer: query.iss }),
      });
    } catch (error) {
      throw new ServerError({
        code: 'forbidden',
        field: 'query.code',
        message: `query.code: the code exchange with "${server.name}" failed: ${messageOf(error)}`,
      });
    }
    return { serverId: pending.serverId, returnTo: pending.returnTo };
  }

  /** Forgets the caller's tokens and registration for this server. */
  async disconnect(principal: Principal, serverId: string): Promise<void> {
    await this.#oauthServer(serverId);
    await this.#options.storage.userSecrets.delete({
      kind: 'mcpOAuth',
      ownerId: serverId,
      userId: principal.user.id,
    });
  }

  async #statusOf(principal: Principal, server: McpServer): Promise<McpConnectionStatus> {
    const state =
      server.authType === 'oauth'
        ? await this.#options.storage.userSecrets.get({
            kind: 'mcpOAuth',
            ownerId: server.id,
            userId: principal.user.id,
          })
        : undefined;
    return {
      serverId: server.id,
      name: server.name,
      authType: server.authType,
      connected: server.authType !== 'oauth' || state?.tokens !== undefined,
    };
  }

  #oauthOptions(userId: string, redirectUrl: string): McpOAuthOptions {
    return {
      tokenStore: createStorageMcpTokenStore(this.#options.storage),
      userId,
      redirectUrl,
      ...omitUndefined({
        refreshLock: this.#options.refreshLock,
        clientMetadataUrl: this.#options.clientMetadataUrl,
      }),
    };
  }

  async #oauthServer(serverId: string): Promise<McpServer> {
    const server = await this.#options.storage.mcpServers.get(serverId);
    if (!server) {
      throw notFoundError('path.serverId', `no MCP server ${JSON.stringify(serverId)}.`);
    }
    if (server.authType !== 'oauth') {
      throw new ServerError({
        code: 'invalid_request',
        field: 'path.serverId',
        message: `path.serverId: "${server.name}" does not use OAuth (its auth is ${server.authType}).`,
      });
    }
    return server;
  }
}

/** The state as stored: its SHA-256 (a high-entropy secret needs no slow hash). */
function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when `secret` hashes to `stored` (a pending authorization without a binding matches nothing). */
function sameHash(stored: string | null, secret: string | undefined): boolean {
  if (stored === null || secret === undefined) return false;
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(hashState(secret), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
