import type { Context } from 'hono';
import type { Principal } from '../http/principal.ts';
import type { RouteAccess, RouteGuard } from '../http/route-registry.ts';
import { ServerError } from '../http/server-error.ts';
import type { RequestRateLimit } from '../scale-out/request-rate-limit.ts';

/** Finds who a request acts as, or undefined when it carries no valid credential. */
export type Authenticate = (context: Context) => Promise<Principal | undefined>;

/** The caller's allowance of requests per minute, for {@link createRequestGuard}. */
export interface RequestGuardRateLimit {
  readonly limit: RequestRateLimit;
  readonly perMinute: number;
}

/**
 * The guard of every route: authenticates (fail closed: no valid credential is 401), applies the caller's rate
 * limit (429 with `Retry-After`; 503 when a shared limit cannot be read), then checks the key's scope and the role
 * the route needs (403).
 */
export function createRequestGuard(
  authenticate: Authenticate,
  rateLimit?: RequestGuardRateLimit,
): RouteGuard {
  return async (context, access) => {
    if (access.kind === 'public') return undefined;
    const principal = await authenticate(context);
    if (!principal) {
      throw new ServerError({
        code: 'unauthenticated',
        field: 'header.authorization',
        message: 'header.authorization: send a valid API key as "Authorization: Bearer tb_…" (or sign in).',
      });
    }
    let wait: number | undefined;
    try {
      wait = await rateLimit?.limit.take(principal.user.id, rateLimit.perMinute);
    } catch (error) {
      // Fail closed: a request whose allowance cannot be counted is not served.
      throw new ServerError({
        code: 'unavailable',
        retryAfterSeconds: 5,
        message: 'Your request rate could not be checked (the shared store did not answer); retry shortly.',
        cause: error,
      });
    }
    if (wait !== undefined) {
      throw new ServerError({
        code: 'rate_limited',
        retryAfterSeconds: wait,
        message: `Too many requests: over your limit per minute; retry in ${wait} s.`,
      });
    }
    checkAccess(principal, access);
    context.set('principal' as never, principal as never);
    return principal;
  };
}

/** Throws 403 when the principal may not use `access`. */
export function checkAccess(principal: Principal, access: RouteAccess): void {
  if (access.kind === 'admin') {
    if (principal.role !== 'admin') {
      throw new ServerError({ code: 'forbidden', message: 'This route is for admins.' });
    }
    if (!principal.scopes.includes('admin')) {
      throw new ServerError({ code: 'forbidden', message: 'This API key lacks the "admin" scope.' });
    }
  }
  if (access.kind === 'user' && !principal.scopes.includes(access.scope)) {
    throw new ServerError({ code: 'forbidden', message: `This API key lacks the "${access.scope}" scope.` });
  }
}

const loopbackHosts = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/** True when a `Host` header names a loopback address (the check of `local` mode against DNS rebinding). */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  return host !== undefined && loopbackHosts.test(host);
}
