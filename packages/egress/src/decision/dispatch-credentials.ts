import type { CredentialRequest, CredentialResolver } from './credential-resolver.ts';
import { CredentialUnavailableError } from './credential-unavailable-error.ts';

/** What {@link dispatchCredentials} did. */
export type CredentialDispatch =
  | { readonly outcome: 'pass_through' }
  | { readonly outcome: 'claimed_no_inject'; readonly resolver: string }
  | {
      readonly outcome: 'injected';
      readonly resolver: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly outcome: 'blocked'; readonly resolver: string; readonly detail: string };

/**
 * Runs the first resolver, in order, that claims the request. A resolver whose `claims` throws is skipped; a
 * `resolve` that throws blocks the request (with the resolver's sandbox-safe detail for a
 * `CredentialUnavailableError`, generic prose otherwise). Never throws.
 */
export async function dispatchCredentials(
  resolvers: readonly CredentialResolver[],
  request: CredentialRequest,
): Promise<CredentialDispatch> {
  for (const resolver of resolvers) {
    let claimed: boolean;
    try {
      claimed = await resolver.claims(request);
    } catch {
      continue;
    }
    if (!claimed) continue;
    try {
      const headers = await resolver.resolve(request);
      if (Object.keys(headers).length === 0) return { outcome: 'claimed_no_inject', resolver: resolver.name };
      return { outcome: 'injected', resolver: resolver.name, headers };
    } catch (error) {
      const detail = CredentialUnavailableError.isInstance(error)
        ? error.sandboxDetail
        : 'The credential for this destination could not be loaded.';
      return { outcome: 'blocked', resolver: resolver.name, detail };
    }
  }
  return { outcome: 'pass_through' };
}
