import type { CredentialResolver } from '../decision/credential-resolver.ts';
import { CredentialUnavailableError } from '../decision/credential-unavailable-error.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { originKey } from '../decision/match-mcp-server.ts';

/** Options for {@link createApiTokenResolver}. */
export interface ApiTokenResolverOptions {
  /** The toolbus API's URL; requests to exactly its scheme, host and port are claimed. */
  readonly apiUrl: string;
  /** The sandbox's own API token, undefined when it has none. */
  readonly tokenFor: (identity: EgressIdentity) => Promise<string | undefined> | string | undefined;
}

/** The header names the toolbus API reads its token from; both are set so either reader finds it. */
export const apiTokenHeaderNames: readonly string[] = ['Authorization', 'X-Toolbus-Authorization'];

/** Adds the sandbox's toolbus API token to requests for the toolbus API itself. */
export function createApiTokenResolver(options: ApiTokenResolverOptions): CredentialResolver {
  const apiOrigin = originKey(new URL(options.apiUrl));
  return {
    name: 'api_token',
    claims: (request) => originKey(request.url) === apiOrigin,
    async resolve(request) {
      const token = await options.tokenFor(request.identity);
      if (token === undefined || token === '') {
        throw new CredentialUnavailableError('This sandbox has no toolbus API token.');
      }
      const headers: Record<string, string> = {};
      for (const name of apiTokenHeaderNames) headers[name] = `Bearer ${token}`;
      return headers;
    },
  };
}
