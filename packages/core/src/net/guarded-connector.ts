import { lookup as dnsLookup } from 'node:dns';
import { omitUndefined } from '@toolbus/spec';
import type { buildConnector } from 'undici';
import {
  type CheckAddressContext,
  type CompiledAddressPolicy,
  checkAddress,
  checkHostNameDetailed,
} from './check-address.ts';
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
  readonly lookup?: GuardedLookup | undefined;
  /** The socket factory that dials the checked address; undici's `buildConnector()` by default. */
  readonly connect?: GuardedConnect | undefined;
}

/**
 * Resolves a name. Every failure (a DNS error, a resolver that throws, an empty or malformed answer) is the
 * guard's own refusal, `host_unresolvable`, so callers meet one error type for every request the guard did not
 * send; the resolver's error stays as the cause.
 */
async function lookupAll(lookup: GuardedLookup, hostname: string): Promise<LookupAddress[]> {
  let answers: LookupAddress[];
  try {
    answers = await new Promise<LookupAddress[]>((resolve, reject) => {
      lookup(hostname, { all: true }, (error, addresses, family) => {
        if (error) reject(error);
        else if (typeof addresses === 'string') resolve([{ address: addresses, family: family ?? 0 }]);
        else if (Array.isArray(addresses)) resolve([...addresses]);
        else reject(new TypeError('resolver answered with neither an address nor a list'));
      });
    });
  } catch (error) {
    throw unresolvable(hostname, error);
  }
  if (answers.length === 0) throw unresolvable(hostname, undefined);
  return answers;
}

function unresolvable(hostname: string, cause: unknown): GuardedFetchError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return new GuardedFetchError({
    code: 'host_unresolvable',
    message: `Refused host "${hostname}": its name did not resolve to any address${typeof code === 'string' ? ` (${code})` : ''}`,
    host: hostname,
    cause,
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
    address: options.address,
    category: options.category,
  });
}

/**
 * One IP address checked against the policy: the address to dial (with its IPv6 zone, when it has one), or the
 * guard's refusal naming the host the request was for.
 */
function admittedAddress(options: {
  readonly hostname: string;
  readonly literal: { readonly address: string; readonly zone?: string | undefined };
  readonly policy: CompiledAddressPolicy;
  readonly context?: CheckAddressContext;
}): string {
  const { literal } = options;
  const verdict = checkAddress(literal.address, options.policy, options.context);
  if (!verdict.allowed) {
    throw blocked({
      host: options.hostname,
      address: verdict.address,
      reason: verdict.reason,
      category: verdict.category,
    });
  }
  return literal.zone === undefined ? literal.address : `${literal.address}%${literal.zone}`;
}

/**
 * What can be decided about a host before any DNS query: an IP literal is checked as written, a name is refused
 * when it is internal by name (localhost, cloud metadata, Kubernetes). Throws the refusal; returns the checked
 * literal address to dial, or the name to resolve. The guarded fetch calls it before handing a URL to undici
 * too, so the guard's refusal comes first, whatever else undici would object to.
 */
export function checkHostBeforeLookup(
  hostname: string,
  policy: CompiledAddressPolicy,
): { readonly address: string } | { readonly name: string } {
  const parsed = parseHostLiteral(hostname);
  if (parsed.type === 'invalid') throw blocked({ host: hostname, reason: parsed.reason });
  if (parsed.type === 'ipv4' || parsed.type === 'ipv6') {
    return { address: admittedAddress({ hostname, literal: parsed, policy }) };
  }
  const nameRefusal = checkHostNameDetailed(parsed.name, policy);
  if (nameRefusal !== undefined)
    throw blocked({ host: hostname, reason: nameRefusal.reason, category: nameRefusal.category });
  return { name: parsed.name };
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
  const checked = checkHostBeforeLookup(hostname, policy);
  if ('address' in checked) return [checked.address];
  const parsed = checked;
  const answers = await lookupAll(options.lookup, parsed.name);
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
    addresses.push(admittedAddress({ hostname, literal, policy, context: { hostName: parsed.name } }));
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
  // undici's own connector is made on the first connection: undici is then loaded by a process that fetches, not
  // by every process that merely creates a guarded fetch (a server at start).
  let inner = options.connect;
  return (connectOptions, callback) => {
    inner ??= loadUndici().buildConnector({});
    const connect = inner;
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
            ...omitUndefined({ servername: servername || undefined }),
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
