import { type Cidr, cidrContains, parseCidr } from './cidr.ts';
import { type AddressCategory, type AddressClassification, classifyIpLiteral } from './classify-address.ts';
import { canonicalHostName, parseHostLiteral } from './parse-host-literal.ts';

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

/**
 * Host names of cloud metadata services, refused at every level (whatever DNS answers for them) unless the allow
 * list names them exactly. The one list of them; the addresses are `cloudMetadataAddresses` in
 * `classify-address.ts`. Sources, by provider:
 * - Google Cloud: `metadata.google.internal`, `metadata.goog`, and the bare `metadata` its resolvers also answer
 *   (cloud.google.com/compute/docs/metadata/querying-metadata). OpenStack documents the bare `metadata` too.
 * - AWS EC2: `instance-data` and `instance-data.ec2.internal` (docs.aws.amazon.com, "Instance metadata service").
 * - Azure: IMDS has no name of its own, only 169.254.169.254 and the WireServer 168.63.129.16 (both addresses).
 * - Alibaba Cloud: 100.100.100.200 only (an address).
 * - Oracle Cloud: 169.254.169.254, and 192.0.0.192 on older images (addresses).
 * - DigitalOcean, Hetzner Cloud, Vultr, Linode (Akamai), Huawei Cloud: 169.254.169.254 (an address).
 * - IBM Cloud: `api.metadata.cloud.ibm.com` (cloud.ibm.com/docs/vpc, "metadata service").
 * - Tencent Cloud: `metadata.tencentyun.com`.
 * - Equinix Metal (formerly Packet): `metadata.platformequinix.com` and the older `metadata.packet.net`, public
 *   names that answer a machine with its own metadata by its source address, so only the name can refuse them.
 * - Rancher: `rancher-metadata`, the metadata service of Rancher's container networks.
 */
export const cloudMetadataHostNames: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'api.metadata.cloud.ibm.com',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
  'metadata.packet.net',
  'rancher-metadata',
];

/**
 * Kubernetes' in-cluster names: the API server's short names, and every name under a namespace's `svc` label
 * or the default cluster domain (`cluster.local`: services and pods). Refused at every level unless allowed by
 * name, whatever they resolve to: in a pod they reach the cluster's own services, which a permissive level
 * would otherwise let through as private addresses. A cluster with another domain lists its names in `allow`
 * only when wanted; its `svc` names are refused all the same.
 */
const kubernetesHostNames: ReadonlySet<string> = new Set(['kubernetes', 'kubernetes.default']);
const kubernetesSuffixes: readonly string[] = ['.svc', '.svc.cluster.local', '.cluster.local'];

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

/** Why a host name is internal by name alone, and what it would reach. */
export interface InternalHostName {
  readonly reason: string;
  readonly category: AddressCategory;
}

/**
 * Whether a host name is internal by its name alone, whatever DNS answers for it: `localhost` and its
 * subdomains (resolvers answer them with loopback without asking anyone), the cloud metadata names, and
 * Kubernetes' in-cluster names. Ignores the allow list; see {@link checkHostName}.
 */
export function internalHostName(hostName: string): InternalHostName | undefined {
  const name = normalizeHostName(hostName);
  if (name === 'localhost' || name.endsWith('.localhost'))
    return { reason: 'localhost host name', category: 'loopback' };
  if (cloudMetadataHostNames.includes(name))
    return { reason: 'cloud metadata host name', category: 'cloud-metadata' };
  if (kubernetesHostNames.has(name) || kubernetesSuffixes.some((suffix) => name.endsWith(suffix)))
    return { reason: 'Kubernetes in-cluster host name', category: 'private' };
  return undefined;
}

/**
 * Checks a host name before it is resolved: names that are internal by name ({@link internalHostName}) are
 * refused at every level unless the allow list names them exactly. Returns the reason for a refusal, or
 * undefined when the name may be resolved and its addresses checked.
 */
export function checkHostName(
  hostName: string,
  policy: AddressPolicy | CompiledAddressPolicy,
): string | undefined {
  return checkHostNameDetailed(hostName, policy)?.reason;
}

/** {@link checkHostName} with the category of what the refused name would reach. */
export function checkHostNameDetailed(
  hostName: string,
  policy: AddressPolicy | CompiledAddressPolicy,
): InternalHostName | undefined {
  const compiled = 'allowBlocks' in policy ? policy : compileAddressPolicy(policy);
  if (compiled.allowNames.has(normalizeHostName(hostName))) return undefined;
  return internalHostName(hostName);
}

function normalizeHostName(hostName: string): string {
  return canonicalHostName(hostName);
}
