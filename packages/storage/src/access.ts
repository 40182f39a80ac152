import type { User } from './user.ts';

/** An API key as stored: its hash and a short prefix to recognise it by, never the key. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly userId: string;
  /** The organisation the key acts in: a request with it acts there and nowhere else. */
  readonly organizationId: string;
  readonly name: string;
  /** The first characters of the key (`tb_ab12…`), shown in lists. */
  readonly prefix: string;
  readonly hash: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** What storing a new API key takes (the caller hashes it). */
export interface NewApiKey {
  readonly userId: User['id'];
  /** The organisation the key acts in (default the default one). */
  readonly organizationId?: string;
  readonly name: string;
  readonly prefix: string;
  readonly hash: string;
  readonly scopes: readonly string[];
}

/** A web session as stored: hashes of its cookie token and its CSRF token. */
export interface WebSessionRecord {
  readonly tokenHash: string;
  readonly userId: string;
  /** The organisation the session acts in, and only there; `null` for a session from before sessions were bound. */
  readonly organizationId: string | null;
  /** The API key that signed the session in (`null` for one made without a key, as local mode): revoking it ends the session. */
  readonly keyId: string | null;
  /** The scopes the session holds: never more than the principal that made it held. */
  readonly scopes: readonly string[];
  readonly csrfHash: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

/** What storing a new web session takes. */
export interface NewWebSession {
  readonly tokenHash: string;
  readonly userId: string;
  /** The organisation the session acts in (unbound when absent: it acts where each request names). */
  readonly organizationId?: string;
  /** The API key the session was made with, if any: revoking it ends the session. */
  readonly keyId?: string;
  /** The scopes of the principal that made the session (or fewer). */
  readonly scopes: readonly string[];
  readonly csrfHash: string;
  readonly expiresAt: string;
}
