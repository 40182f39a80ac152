import { type Cidr, cidrContains, parseCidr } from './cidr.ts';
import { type AddressCategory, type AddressClassification, classifyIpLiteral } from './classify-address.ts';
import { parseHostLiteral } from './parse-host-literal.ts';

/**
 * How much of the network the guard lets through. `strict`: public addresses only. `permissive`: also private,
 * loopback, shared (CGNAT) and unique-local networks, for on-premise deployments; never cloud metadata,
 * link-local, multicast, broadcast, unspecified or reserved addresses.
 */
export type GuardLevel = 'strict' | 'permissive';

/** The policy an outbound connection is checked against. */
export interface AddressPolicy {
  readonly level: GuardLevel;
  /**
   * Exemptions: CIDR blocks or single addresses (`10.1.0.0/16`, `127.0.0.1`, `fd12::/16`) exempt exactly those
   * addresses, whatever their category. Host names (`mcp.corp.example`) exempt connections made to that name,
   * except to cloud-metadata addresses, which DNS must never be able to hand out.
   */
  readonly allow?: readonly string[];
}

/** The verdict of {@link checkAddress}. */
export type AddressCheck =
  | (AddressClassification & { readonly allowed: true; readonly exemptedBy?: string })
  | (AddressClassification & { readonly allowed: false; readonly reason: string });

/** Host names of cloud metadata services, refused at every level unless allowed by name. */
export const cloudMetadataHostNames: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
];

const permissiveCategories: ReadonlySet<AddressCategory> = new Set([
  'public',
  'private',
  'loopback',
  'shared-address-space',
  'unique-local',
  'site-local',
  'documentation',
  'benchmarking',
]);

/** An {@link AddressPolicy} with its allow list parsed once. */
export interface CompiledAddressPolicy {
  readonly level: GuardLevel;
  readonly allowBlocks: ReadonlyArray<{ readonly text: string; readonly block: Cidr }>;
  readonly allowNames: ReadonlySet<string>;
}

const compiledPolicies = new WeakMap<AddressPolicy, CompiledAddressPolicy>();

/**
 * Parses a policy's allow list; throws a `TypeError` naming the first entry that is neither a CIDR block nor a
 * host name, so a typo in configuration fails at start-up instead of silently allowing nothing.
 */
export function compileAddressPolicy(policy: AddressPolicy): CompiledAddressPolicy {
  const cached = compiledPolicies.get(policy);
  if (cached !== undefined) return cached;
  if (policy.level !== 'strict' && policy.level !== 'permissive') {
    throw new TypeError(`Unknown guard level: ${String(policy.level)}`);
  }
  const allowBlocks: Array<{ text: string; block: Cidr }> = [];
  const allowNames = new Set<string>();
  for (const entry of policy.allow ?? []) {
    const block = parseCidr(entry.trim());
    if (block !== undefined) {
      allowBlocks.push({ text: entry, block });
      continue;
    }
    const parsed = parseHostLiteral(entry);
    if (parsed.type !== 'name' || !/^[a-z0-9_.-]+$/.test(parsed.name)) {
      throw new TypeError(`Allow-list entry is neither a CIDR block nor a host name: ${entry}`);
    }
    allowNames.add(parsed.name);
  }
  const compiled = { level: policy.level, allowBlocks, allowNames };
  compiledPolicies.set(policy, compiled);
  return compiled;
}

/** Options of {@link checkAddress} beyond the address and the policy. */
export interface CheckAddressContext {
  /** The host name the address was resolved from; an allow-listed name exempts its addresses. */
  readonly hostName?: string;
}

/**
 * Decides whether a connection to `address` is allowed by `policy`. Pure and synchronous: the guarded fetch calls
 * it for every address DNS returns, right before connecting, and other components (open_url, the egress proxy)
 * can reuse it. A string that is not an IP address is refused, never treated as allowed.
 */
export function checkAddress(
  address: string,
  policy: AddressPolicy | CompiledAddressPolicy,
  context: CheckAddressContext = {},
): AddressCheck {
  const compiled = 'allowBlocks' in policy ? policy : compileAddressPolicy(policy);
  const parsed = parseHostLiteral(address);
  if (parsed.type !== 'ipv4' && parsed.type !== 'ipv6') {
    return { address, family: 4, category: 'reserved', allowed: false, reason: 'not an IP address' };
  }
  const { classification, embeddedBytes } = classifyIpLiteral(parsed);
  for (const { text, block } of compiled.allowBlocks) {
    if (
      cidrContains(block, parsed.bytes) ||
      (embeddedBytes !== undefined && cidrContains(block, embeddedBytes))
    ) {
      return { ...classification, allowed: true, exemptedBy: text };
    }
  }
  const { category } = classification;
  const hostName = context.hostName === undefined ? undefined : normalizeHostName(context.hostName);
  if (hostName !== undefined && compiled.allowNames.has(hostName) && category !== 'cloud-metadata') {
    return { ...classification, allowed: true, exemptedBy: hostName };
  }
  const allowed = compiled.level === 'strict' ? category === 'public' : permissiveCategories.has(category);
  if (allowed) return { ...classification, allowed: true };
  const via =
    classification.embeddedIpv4 === undefined
      ? ''
      : ` (${classification.embeddedIpv4.form} form of ${classification.embeddedIpv4.address})`;
  return {
    ...classification,
    allowed: false,
    reason: `${category} address${via} not allowed at level ${compiled.level}`,
  };
}

/**
 * Checks a host name before it is resolved: cloud-metadata names are refused at every level unless the allow
 * list names them. Returns the reason for a refusal, or undefined when the name may be resolved and its
 * addresses checked.
 */
export function checkHostName(
  hostName: string,
  policy: AddressPolicy | CompiledAddressPolicy,
): string | undefined {
  const compiled = 'allowBlocks' in policy ? policy : compileAddressPolicy(policy);
  const name = normalizeHostName(hostName);
  if (compiled.allowNames.has(name)) return undefined;
  if (cloudMetadataHostNames.includes(name)) return 'cloud metadata host name';
  return undefined;
}

function normalizeHostName(hostName: string): string {
  return hostName.trim().toLowerCase().replace(/\.+$/, '');
}
