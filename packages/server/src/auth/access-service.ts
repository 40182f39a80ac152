import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { omitUndefined } from '@toolbus/spec';
import {
  type ApiKeyRecord,
  DEFAULT_ORGANIZATION_ID,
  type Storage,
  type User,
  type UserRole,
} from '@toolbus/storage';
import type { Context } from 'hono';
import { cookieValue } from '../http/cookie.ts';
import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  actsAsDeploymentAdmin,
  ORGANIZATION_HEADER,
  type Principal,
} from '../http/principal.ts';
import { notFoundError, ServerError } from '../http/server-error.ts';
import { localAdminPrincipal } from './local-auth.ts';
import { resolveOrganization } from './organization-service.ts';

/** The cookie of a web session. */
export const SESSION_COOKIE = 'toolbus_session';
/** The header a web session must send its CSRF token in, on every request that changes something. */
export const CSRF_HEADER = 'x-csrf-token';
/** How long a web session lasts. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

const keyPrefix = 'tb_';
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** An API key as shown to its owner: never the key itself, except once at creation. */
export interface ApiKeyView {
  readonly id: string;
  /** The organisation the key acts in, and only there. */
  readonly organizationId: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/**
 * Users, roles, API keys and web sessions, as typed operations over the caller. Keys and session tokens are 32
 * random bytes, stored as SHA-256 hashes (high-entropy secrets need no slow hash); the key is shown once.
 */
export class AccessService {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Who a request acts as: a Bearer API key, else a session cookie (with its CSRF token on unsafe methods). */
  async authenticate(context: Context): Promise<Principal | undefined> {
    const authorization = context.req.header('authorization');
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!match?.[1]) return undefined;
      return this.#fromKey(match[1], context.req.header(ORGANIZATION_HEADER));
    }
    const token = cookieValue(context.req.header('cookie'), SESSION_COOKIE);
    if (token === undefined) return undefined;
    const session = await this.#storage.access.getSession(sha256(token));
    if (!session) return undefined;
    if (!safeMethods.has(context.req.method)) {
      const csrf = context.req.header(CSRF_HEADER);
      if (csrf === undefined || !equalHashes(sha256(csrf), session.csrfHash)) {
        throw new ServerError({
          code: 'forbidden',
          field: `header.${CSRF_HEADER}`,
          message: `header.${CSRF_HEADER}: a signed-in browser must send its session's CSRF token on this request.`,
        });
      }
    }
    const user = await this.#storage.users.get(session.userId);
    if (!user) return undefined;
    // Read from shared storage on every request (no per-process cache), so a revocation on any replica ends the
    // session on all of them at once. Revoking also deletes the session rows; this check holds even if it did not.
    if (session.keyId !== null) {
      const key = await this.#storage.access.getApiKey(session.keyId);
      if (!key || key.revokedAt !== null || key.userId !== user.id) return undefined;
    }
    const requested = context.req.header(ORGANIZATION_HEADER);
    // A session acts where the request that started it acted (a key's organisation, only); one from before sessions
    // were bound acts where each request names.
    const organization =
      session.organizationId === null
        ? await resolveOrganization(this.#storage, user, requested)
        : await this.#boundOrganization(user, session.organizationId, requested, 'session');
    return {
      user,
      role: user.role,
      scopes: heldScopes(session.scopes, user.role),
      via: 'session',
      ...omitUndefined({ keyId: session.keyId ?? undefined }),
      organization,
    };
  }

  /** Creates a user (admins only). */
  async createUser(
    principal: Principal,
    input: { email: string; name?: string | undefined; role?: UserRole | undefined },
  ): Promise<User> {
    requireAdmin(principal);
    return this.#storage.users.create({
      email: input.email,
      ...omitUndefined({ name: input.name, role: input.role }),
    });
  }

  /** Every user (admins only). */
  async listUsers(principal: Principal): Promise<readonly User[]> {
    requireAdmin(principal);
    return this.#storage.users.list();
  }

  /** Changes a user's role (admins only). */
  async setRole(principal: Principal, userId: string, role: UserRole): Promise<User> {
    requireAdmin(principal);
    return this.#storage.users.update(userId, { role });
  }

  /**
   * Creates an API key for the caller, or (admins) for `userId`. Needs the `keys` scope, and a principal never hands
   * out more than it holds: every scope asked for must be one the calling key (or session) holds, and one the
   * owner's role may use (`admin` is for admins). The key acts in one organisation only: the caller's own key in the organisation the
   * request acts in; an admin's key for another user in `organizationId` (one the user is a member of), else the
   * caller's organisation when the user is a member there, else the user's first. Returns the key: shown this
   * once, stored only as a hash.
   */
  async createApiKey(
    principal: Principal,
    input: {
      name: string;
      scopes?: readonly ApiKeyScope[] | undefined;
      userId?: string | undefined;
      organizationId?: string | undefined;
    },
  ): Promise<{ key: string; apiKey: ApiKeyView }> {
    if (!principal.scopes.includes('keys')) {
      throw new ServerError({
        code: 'forbidden',
        message:
          'Minting API keys needs the "keys" scope, which the key (or session) making this request lacks.',
      });
    }
    let owner = principal.user;
    if (input.userId !== undefined && input.userId !== principal.user.id) {
      requireAdmin(principal);
      const found = await this.#storage.users.get(input.userId);
      if (!found) throw notFoundError('path.userId', `no user ${JSON.stringify(input.userId)}.`);
      owner = found;
    }
    const scopes: ApiKeyScope[] = [...new Set<ApiKeyScope>(input.scopes ?? ['chat'])];
    const allowed = scopesOfRole(owner.role);
    scopes.forEach((scope, index) => {
      if (!principal.scopes.includes(scope)) {
        throw new ServerError({
          code: 'forbidden',
          field: `body.scopes.${index}`,
          message: `body.scopes.${index}: the key (or session) making this request does not hold the "${scope}" scope, and a key never gets more than the one that makes it.`,
        });
      }
      if (!allowed.includes(scope)) {
        throw new ServerError({
          code: 'invalid_request',
          field: `body.scopes.${index}`,
          message: `body.scopes.${index}: a ${owner.role} cannot hold the "${scope}" scope.`,
        });
      }
    });
    const organizationId = await this.#keyOrganization(principal, owner, input.organizationId);
    const key = `${keyPrefix}${randomBytes(32).toString('base64url')}`;
    const record = await this.#storage.access.createApiKey({
      userId: owner.id,
      organizationId,
      name: input.name,
      prefix: key.slice(0, 10),
      keyHash: sha256(key),
      scopes,
    });
    return { key, apiKey: keyView(record) };
  }

  /** The caller's keys (never the keys themselves). */
  async listApiKeys(principal: Principal): Promise<readonly ApiKeyView[]> {
    return (await this.#storage.access.listApiKeys(principal.user.id)).map(keyView);
  }

  /** Revokes one of the caller's keys (admins: anyone's); `not_found` for a key that is not theirs. */
  async revokeApiKey(principal: Principal, keyId: string): Promise<void> {
    const record = await this.#storage.access.getApiKey(keyId);
    if (!record || (record.userId !== principal.user.id && !actsAsDeploymentAdmin(principal))) {
      throw notFoundError('path.keyId', `no key ${JSON.stringify(keyId)} of yours.`);
    }
    await this.#storage.access.revokeApiKey(keyId);
  }

  /**
   * Starts a web session for the caller, acting in the organisation the request acts in (and only there), holding
   * the caller's scopes and no more, and remembering the key that made it (revoking that key ends the session): a
   * cookie token and a CSRF token, both shown once.
   */
  async createSession(
    principal: Principal,
  ): Promise<{ token: string; csrfToken: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + SESSION_LIFETIME_MS).toISOString();
    await this.#storage.access.createSession({
      tokenHash: sha256(token),
      userId: principal.user.id,
      organizationId: principal.organization.id,
      scopes: principal.scopes,
      ...omitUndefined({ keyId: principal.keyId }),
      csrfHash: sha256(csrfToken),
      expiresAt,
    });
    return { token, csrfToken, expiresAt };
  }

  /** Ends the session of a request's cookie, if any. */
  async endSession(context: Context): Promise<void> {
    const token = cookieValue(context.req.header('cookie'), SESSION_COOKIE);
    if (token !== undefined) await this.#storage.access.deleteSession(sha256(token));
  }

  /**
   * Makes sure someone can administer a fresh deployment: when no admin holds a live key, `email`'s user (created
   * when missing) becomes an admin and gets a new key with every scope, returned once. Otherwise undefined.
   */
  async bootstrapAdmin(email: string): Promise<{ user: User; key: string } | undefined> {
    for (const user of await this.#storage.users.list()) {
      if (user.role !== 'admin') continue;
      const keys = await this.#storage.access.listApiKeys(user.id);
      if (keys.some((key) => key.revokedAt === null)) return undefined;
    }
    let user =
      (await this.#storage.users.get({ email })) ??
      (await this.#storage.users.create({ email, role: 'admin' }));
    if (user.role !== 'admin') user = await this.#storage.users.update(user.id, { role: 'admin' });
    const { key } = await this.createApiKey(localAdminPrincipal(user), {
      name: 'bootstrap admin key',
      scopes: API_KEY_SCOPES,
    });
    return { user, key };
  }

  /** The organisation a new key of `owner` acts in (see {@link AccessService.createApiKey}). */
  async #keyOrganization(principal: Principal, owner: User, requested: string | undefined): Promise<string> {
    const memberships = await this.#storage.organizations.members({ userId: owner.id });
    const usable = async (organizationId: string) =>
      memberships.some((member) => member.organizationId === organizationId) ||
      (owner.role === 'admin' && (await this.#storage.organizations.get(organizationId)) !== undefined);
    if (requested !== undefined) {
      if (
        owner.id === principal.user.id &&
        principal.role !== 'admin' &&
        requested !== principal.organization.id
      ) {
        throw new ServerError({
          code: 'forbidden',
          field: 'body.organizationId',
          message: `body.organizationId: your own key acts where this request acts (${JSON.stringify(principal.organization.id)}); only a deployment admin makes their own keys for another organisation.`,
        });
      }
      if (!(await usable(requested))) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'body.organizationId',
          message: `body.organizationId: the user is not a member of organisation ${JSON.stringify(requested)}.`,
        });
      }
      return requested;
    }
    if (owner.id === principal.user.id || (await usable(principal.organization.id))) {
      return principal.organization.id;
    }
    const first = memberships[0];
    if (first) return first.organizationId;
    if (owner.role === 'admin') return DEFAULT_ORGANIZATION_ID;
    throw new ServerError({
      code: 'invalid_request',
      field: 'path.userId',
      message: 'path.userId: the user belongs to no organisation; add them to one first.',
    });
  }

  async #fromKey(key: string, requestedOrganization: string | undefined): Promise<Principal | undefined> {
    if (!key.startsWith(keyPrefix) || key.length > 200) return undefined;
    const record = await this.#storage.access.getApiKey({ keyHash: sha256(key) });
    if (!record || record.revokedAt !== null) return undefined;
    const user = await this.#storage.users.get(record.userId);
    if (!user) return undefined;
    await this.#storage.access.touchApiKey(record.id);
    // A key never grants more than its owner's role allows today (a demoted admin's admin key loses admin).
    const scopes = heldScopes(record.scopes, user.role);
    const organization = await this.#boundOrganization(
      user,
      record.organizationId,
      requestedOrganization,
      'API key',
    );
    return { user, role: user.role, scopes, via: 'api-key', keyId: record.id, organization };
  }

  /**
   * The organisation of a credential bound to one: it acts there and nowhere else (naming another is refused, not
   * ignored), and only while its user is still a member.
   */
  async #boundOrganization(
    user: User,
    bound: string,
    requested: string | undefined,
    what: 'API key' | 'session',
  ): Promise<Principal['organization']> {
    if (requested !== undefined && requested !== bound) {
      throw new ServerError({
        code: 'forbidden',
        field: `header.${ORGANIZATION_HEADER}`,
        message: `header.${ORGANIZATION_HEADER}: this ${what} acts only in organisation ${JSON.stringify(bound)}; use ${what === 'API key' ? 'a key made there' : 'a key made there to sign in'}.`,
      });
    }
    try {
      return await resolveOrganization(this.#storage, user, bound);
    } catch {
      throw new ServerError({
        code: 'forbidden',
        message: `This ${what} acts in organisation ${JSON.stringify(bound)}, which its user is no longer a member of.`,
      });
    }
  }
}

/** The scopes a role may hold. */
export function scopesOfRole(role: UserRole): readonly ApiKeyScope[] {
  return role === 'admin' ? API_KEY_SCOPES : API_KEY_SCOPES.filter((scope) => scope !== 'admin');
}

/** The stored scopes a credential holds today: those its owner's role still allows, unknown ones dropped. */
function heldScopes(stored: readonly string[], role: UserRole): readonly ApiKeyScope[] {
  const allowed = scopesOfRole(role);
  return stored.filter((scope): scope is ApiKeyScope => allowed.includes(scope as ApiKeyScope));
}

function requireAdmin(principal: Principal): void {
  if (principal.role !== 'admin')
    throw new ServerError({ code: 'forbidden', message: 'Only admins may do this.' });
}

function keyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    organizationId: record.organizationId,
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt,
    revokedAt: record.revokedAt,
  };
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function equalHashes(left: string, right: string): boolean {
  const a = Buffer.from(left, 'hex');
  const b = Buffer.from(right, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
