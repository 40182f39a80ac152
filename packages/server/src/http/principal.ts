import type { ApiKeyScope } from '@toolbus/api-schema';
import type { OrganizationRole, User, UserRole } from '@toolbus/storage';

// The scopes are part of the wire schema (a request names them); the server reads them from there.
export { API_KEY_SCOPES, type ApiKeyScope } from '@toolbus/api-schema';

/** Who a request acts as, and how it proved it. */
export interface Principal {
  readonly user: User;
  readonly role: UserRole;
  /**
   * The scopes of the key used, or of the session (those of the key that signed it in); the loopback-only local
   * mode has every scope.
   */
  readonly scopes: readonly ApiKeyScope[];
  readonly via: 'api-key' | 'session' | 'local';
  /** The API key's id, when one was used or signed the session in (for limits, logs and revocation; never the key). */
  readonly keyId?: string;
  /**
   * The organisation the request acts in (the `x-toolbus-organization` header, else the user's first), and the
   * user's role there. What the request creates belongs to it; what it reads must.
   */
  readonly organization: { readonly id: string; readonly role: OrganizationRole };
}

/** The header that picks the organisation a request acts in, for a user in several. */
export const ORGANIZATION_HEADER = 'x-toolbus-organization';

/** True when a chat or file is the principal's own, in the organisation the request acts in. */
export function ownsRow(
  principal: Principal,
  row: { readonly userId: string; readonly organizationId: string },
) {
  return row.userId === principal.user.id && row.organizationId === principal.organization.id;
}

/**
 * True when the principal acts as a deployment admin: an admin whose key (or session) holds the `admin` scope. An
 * admin's narrower key acts as a plain user, so a key's scopes stay a boundary on every route.
 */
export function actsAsDeploymentAdmin(principal: Principal): boolean {
  return principal.role === 'admin' && principal.scopes.includes('admin');
}
