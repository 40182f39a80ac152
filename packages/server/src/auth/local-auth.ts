import type { Storage, User } from '@toolbus/storage';
import { DEFAULT_ORGANIZATION_ID } from '@toolbus/storage';
import { API_KEY_SCOPES, type Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import { type Authenticate, isLoopbackHostHeader } from './request-guard.ts';

/** The email of the single user of `local` mode. */
export const LOCAL_USER_EMAIL = 'local@toolbus.invalid';

/**
 * An admin with every scope in the default organisation, acting on this machine: the one user of `local` mode, and
 * the caller that mints the first admin's key (`bootstrapAdmin`), which has no key to act with yet.
 */
export function localAdminPrincipal(user: User): Principal {
  return {
    user,
    role: 'admin',
    scopes: API_KEY_SCOPES,
    via: 'local',
    organization: { id: DEFAULT_ORGANIZATION_ID, role: 'admin' },
  };
}

/**
 * The authentication of `local` mode (a server without keys, for one person on their own machine): every request
 * acts as the one local user, an admin with every scope, in the default organisation. Only for a request to a
 * loopback host name: a page on another site that reaches the port by a DNS name of its own (DNS rebinding) is
 * refused, as is any other name.
 */
export async function localAuthentication(storage: Storage, localUser?: User): Promise<Authenticate> {
  const user: User =
    localUser ??
    (await storage.users.get({ email: LOCAL_USER_EMAIL })) ??
    (await storage.users.create({ email: LOCAL_USER_EMAIL, name: 'You' }));
  const principal = localAdminPrincipal(user);
  return async (context) => {
    if (!isLoopbackHostHeader(context.req.header('host'))) {
      throw new ServerError({
        code: 'forbidden',
        field: 'header.host',
        message:
          'header.host: this server runs without keys and only answers requests for a loopback host name.',
      });
    }
    return principal;
  };
}
