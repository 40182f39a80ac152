import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** An API key as stored: its hash and a short prefix to recognise it by, never the key. */
export type ApiKeyRecord = Omit<StoredRow<'api_keys'>, 'keyHash' | 'scopesJson'> & {
  readonly hash: string;
  readonly scopes: readonly string[];
};

/** What storing a new API key takes (the caller hashes it); the organisation defaults to the default one. */
export type NewApiKey = Creating<
  ApiKeyRecord,
  'userId' | 'name' | 'prefix' | 'hash' | 'scopes',
  'organizationId'
>;

/** A web session as stored: hashes of its cookie token and its CSRF token. */
export type WebSessionRecord = Omit<StoredRow<'web_sessions'>, 'scopesJson'> & {
  /** The scopes the session holds: never more than the principal that made it held. */
  readonly scopes: readonly string[];
};

/**
 * What storing a new web session takes. Without an organisation it is unbound (it acts where each request names);
 * without a key it was made without one (as local mode).
 */
export type NewWebSession = Creating<
  WebSessionRecord,
  'tokenHash' | 'userId' | 'scopes' | 'csrfHash' | 'expiresAt',
  'organizationId' | 'keyId'
>;
