import type { EgressIdentity } from '../decision/egress-request.ts';

/** Identities of the runs the proxy currently serves, keyed by their listener's connection key. */
export interface RunIdentityRegistry {
  register(connection: string, identity: EgressIdentity): void;
  unregister(connection: string): void;
  /** For `EgressContext.identify`: undefined for a key no live run holds. */
  identify(connection: string): EgressIdentity | undefined;
}

/** An in-memory {@link RunIdentityRegistry}. */
export function createRunIdentityRegistry(): RunIdentityRegistry {
  const identities = new Map<string, EgressIdentity>();
  return {
    register: (connection, identity) => {
      identities.set(connection, identity);
    },
    unregister: (connection) => {
      identities.delete(connection);
    },
    identify: (connection) => identities.get(connection),
  };
}
