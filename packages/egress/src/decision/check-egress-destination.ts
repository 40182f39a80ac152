import { type AddressPolicy, checkAddress, checkHostName, parseHostLiteral } from '@toolbus/core/net';
import { omitUndefined } from '@toolbus/spec';
import { originKey } from './match-mcp-server.ts';

/** Resolves a host name to every address it has (A and AAAA); rejects when resolution fails. */
export type EgressHostResolver = (hostName: string) => Promise<readonly string[]>;

/** Options for {@link checkEgressDestination}. */
export interface CheckEgressDestinationOptions {
  readonly url: URL;
  readonly resolveHost: EgressHostResolver;
  /** The guard's policy; the proxy uses `strict` (public addresses only) unless configured otherwise. */
  readonly policy: AddressPolicy;
  /** The toolbus API: its exact scheme, host and port are the one internal destination allowed. */
  readonly apiUrl?: string;
}

/** The verdict of {@link checkEgressDestination}. */
export type EgressDestination =
  /** `address` is the checked address the proxy must dial (never resolve the name a second time). */
  | { readonly allowed: true; readonly address: string; readonly port: number }
  | { readonly allowed: false; readonly reason: string };

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Checks where a request would go. Every address the name resolves to must pass the guard's policy: one
 * internal answer among public ones blocks the whole name (a resolver can hand out either), and a failed
 * resolution blocks. The caller then connects to the returned address itself, so a second DNS answer cannot
 * swap in an internal address between check and connect.
 */
export async function checkEgressDestination(
  options: CheckEgressDestinationOptions,
): Promise<EgressDestination> {
  const { url } = options;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { allowed: false, reason: `scheme ${url.protocol} is not proxied` };
  }
  const port = urlPort(url);
  const isApi = options.apiUrl !== undefined && originKey(url) === originKey(new URL(options.apiUrl));
  const host = parseHostLiteral(url.hostname);
  let addresses: readonly string[];
  if (host.type === 'invalid') return { allowed: false, reason: `invalid host: ${host.reason}` };
  if (host.type === 'name') {
    const refused = isApi ? undefined : checkHostName(host.name, options.policy);
    if (refused !== undefined) return { allowed: false, reason: refused };
    try {
      addresses = await options.resolveHost(host.name);
    } catch {
      return { allowed: false, reason: 'the host name does not resolve' };
    }
  } else {
    addresses = [host.address];
  }
  const [first] = addresses;
  if (first === undefined) return { allowed: false, reason: 'the host name has no addresses' };
  if (isApi) return { allowed: true, address: first, port };
  const hostName = host.type === 'name' ? host.name : undefined;
  for (const address of addresses) {
    const verdict = checkAddress(address, options.policy, omitUndefined({ hostName }));
    if (!verdict.allowed) return { allowed: false, reason: verdict.reason };
  }
  return { allowed: true, address: first, port };
}
