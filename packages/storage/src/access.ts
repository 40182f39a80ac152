import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** A row with its `scopesJson` read as the scopes it grants. */
type WithScopes<Row> = Omit<Row, 'scopesJson'> & { readonly scopes: readonly string[] };

/** An API key as stored: its hash and a short prefix to recognise it by, never the key. */
export type ApiKeyRecord = WithScopes<StoredRow<'api_keys'>>;

/** What storing a new API key takes (the caller hashes it); the organisation defaults to the default one. */
export type NewApiKey = Creating<
  ApiKeyRecord,
  'userId' | 'name' | 'prefix' | 'keyHash' | 'scopes',
  'organizationId'
>;

/** A web session as stored: hashes of its cookie and CSRF tokens, and its scopes (never more than its maker held). */
export type WebSessionRecord = WithScopes<StoredRow<'web_sessions'>>;

/** What storing a web session takes; without an organisation it acts where each request names. */
export type NewWebSession = Creating<
  WebSessionRecord,
  'tokenHash' | 'userId' | 'scopes' | 'csrfHash' | 'expiresAt',
  'organizationId' | 'keyId'
>;
