import { lookup as dnsLookup } from 'node:dns';
import type { buildConnector } from 'undici';
import { type CompiledAddressPolicy, checkAddress, checkHostName } from './check-address.ts';
import { GuardedFetchError } from './guarded-fetch-error.ts';
import { loadUndici } from './load-undici.ts';
import { parseHostLiteral } from './parse-host-literal.ts';

/** One address of a `dns.lookup(..., { all: true })` answer. */
export interface LookupAddress {
  readonly address: string;
  readonly family: number;
}

/**
 * A resolver with the shape of `dns.lookup` called with `{ all: true }`. Resolvers that answer with a single
 * `(error, address, family)` are accepted too.
 */
export type GuardedLookup = (
  hostname: string,
  options: { all: true },
  callback: (
    error: NodeJS.ErrnoException | null,
    addresses: readonly LookupAddress[] | string,
    family?: number,
  ) => void,
) => void;

/** Undici's socket factory (`connect` option of a dispatcher): opens a TCP or TLS socket for one origin. */
export type GuardedConnect = buildConnector.connector;

/** Options of {@link createGuardedConnector}. */
export interface GuardedConnectorOptions {
  readonly policy: CompiledAddressPolicy;
  readonly lookup?: GuardedLookup;
  /** The socket factory that dials the checked address; undici's `buildConnector()` by default. */
  readonly connect?: GuardedConnect;
}

function lookupAll(lookup: GuardedLookup, hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true }, (error, addresses, family) => {
      if (error) reject(error);
      else if (typeof addresses === 'string') resolve([{ address: addresses, family: family ?? 0 }]);
      else resolve([...addresses]);
    });
  });
}

function blocked(options: {
  host: string;
  address?: string;
  reason: string;
  category?: GuardedFetchError['category'];
}): GuardedFetchError {
  const where =
    options.address === undefined || options.address === options.host ? '' : ` (address ${options.address})`;
  return new GuardedFetchError({
    code: 'ssrf_blocked',
    message: `Blocked connection to host "${options.host}"${where}: ${options.reason}`,
    host: options.host,
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.category === undefined ? {} : { category: options.category }),
  });
}

/**
 * Resolves the host of a connection and checks every address against the policy, returning the addresses to try
 * in order. An IP literal is checked as written; a name is resolved with `lookup` and refused as a whole when any
 * of its addresses is refused (an attacker's DNS could otherwise mix a public address with an internal one).
 */
export async function resolveCheckedAddresses(options: {
  readonly hostname: string;
  readonly policy: CompiledAddressPolicy;
  readonly lookup: GuardedLookup;
}): Promise<string[]> {
  const { hostname, policy } = options;
  const parsed = parseHostLiteral(hostname);
  if (parsed.type === 'invalid') throw blocked({ host: hostname, reason: parsed.reason });
  if (parsed.type === 'ipv4' || parsed.type === 'ipv6') {
    const verdict = checkAddress(parsed.address, policy);
    if (!verdict.allowed)
      throw blocked({
        host: hostname,
        address: verdict.address,
        reason: verdict.reason,
        category: verdict.category,
      });
    return [parsed.zone === undefined ? parsed.address : `${parsed.address}%${parsed.zone}`];
  }
  const nameRefusal = checkHostName(parsed.name, policy);
  if (nameRefusal !== undefined)
    throw blocked({ host: hostname, reason: nameRefusal, category: 'cloud-metadata' });
  const answers = await lookupAll(options.lookup, parsed.name);
  if (answers.length === 0)
    throw Object.assign(new Error(`No addresses found for host "${hostname}"`), { code: 'ENOTFOUND' });
  const addresses: string[] = [];
  for (const answer of answers) {
    const literal = parseHostLiteral(answer.address);
    if (literal.type !== 'ipv4' && literal.type !== 'ipv6') {
      throw blocked({
        host: hostname,
        address: answer.address,
        reason: 'resolver returned something that is not an IP address',
      });
    }
    const verdict = checkAddress(literal.address, policy, { hostName: parsed.name });
    if (!verdict.allowed)
      throw blocked({
        host: hostname,
        address: verdict.address,
        reason: verdict.reason,
        category: verdict.category,
      });
    addresses.push(literal.zone === undefined ? literal.address : `${literal.address}%${literal.zone}`);
  }
  return addresses;
}

/**
 * An undici connector that connects only to checked addresses. It resolves the host itself and hands the inner
 * socket factory the checked IP address, never the name, so nothing can resolve the name a second time between
 * the check and the connection (DNS rebinding). For TLS the original name stays the SNI server name and the name
 * the certificate is verified against. Addresses are tried in order until one connects.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): GuardedConnect {
  const lookup: GuardedLookup = options.lookup ?? dnsLookup;
  const connect = options.connect ?? loadUndici().buildConnector({});
  return (connectOptions, callback) => {
    const { hostname, protocol } = connectOptions;
    resolveCheckedAddresses({ hostname, policy: options.policy, lookup }).then(
      (addresses) => {
        const literal = parseHostLiteral(hostname);
        const servername =
          protocol === 'https:' && literal.type === 'name'
            ? (connectOptions.servername ?? literal.name)
            : connectOptions.servername;
        const attempt = (index: number, lastError?: Error): void => {
          const address = addresses[index];
          if (address === undefined) {
            callback(lastError ?? new Error(`Could not connect to host "${hostname}"`), null);
            return;
          }
          const attemptOptions = {
            ...connectOptions,
            hostname: address,
            ...(servername ? { servername } : {}),
          };
          try {
            connect(attemptOptions, (error, socket) => {
              if (error) attempt(index + 1, error);
              else callback(null, socket);
            });
          } catch (error) {
            // A socket factory that throws instead of calling back must not leave the request hanging.
            attempt(index + 1, error instanceof Error ? error : new Error(String(error)));
          }
        };
        attempt(0);
      },
      (error: Error) => callback(error, null),
    );
  };
}
