import { type Cidr, cidr, cidrContains } from './cidr.ts';
import { type IpHostLiteral, parseHostLiteral } from './parse-host-literal.ts';

/**
 * What kind of destination an IP address is. Taken from the IANA special-purpose address registries; an IPv6
 * address that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo, ...) takes the embedded address's kind,
 * because that is where packets to it end up.
 */
export type AddressCategory =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'shared-address-space'
  | 'cloud-metadata'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'site-local'
  | 'reserved';

/** How an IPv6 address carries an IPv4 address. */
export type EmbeddedIpv4Form =
  | 'ipv4-mapped'
  | 'ipv4-translated'
  | 'ipv4-compatible'
  | 'nat64'
  | 'nat64-local'
  | '6to4'
  | 'teredo';

/** The result of {@link classifyAddress}. */
export interface AddressClassification {
  /** Canonical text of the address (no brackets, no zone). */
  readonly address: string;
  readonly family: 4 | 6;
  readonly category: AddressCategory;
  /** Set when an IPv6 address embeds the IPv4 address that decided the category. */
  readonly embeddedIpv4?: { readonly address: string; readonly form: EmbeddedIpv4Form };
}

type RangeTable = ReadonlyArray<readonly [Cidr, AddressCategory]>;

function table(entries: ReadonlyArray<readonly [string, AddressCategory]>): RangeTable {
  return entries.map(([text, category]) => [cidr(text), category] as const);
}

/**
 * Cloud instance-metadata endpoints: AWS/Azure/GCP/OCI/DigitalOcean (169.254.169.254), AWS ECS and EKS pod
 * identity, Tencent, Alibaba (100.100.100.200), Oracle's older images (192.0.0.192), Azure's WireServer
 * (168.63.129.16, a public address that only answers from inside Azure), and the IPv6 endpoints of AWS and GCP.
 * Never reachable through the guard at any level. The names of these services are `cloudMetadataHostNames`.
 */
export const cloudMetadataAddresses: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '169.254.0.23',
  '100.100.100.200',
  '168.63.129.16',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
  'fd20:ce::254',
];

const metadataTable: RangeTable = table(
  cloudMetadataAddresses.map((address) => [address, 'cloud-metadata'] as const),
);

// First match wins, so more specific blocks come before the blocks that contain them.
const ipv4Table: RangeTable = table([
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared-address-space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.9/32', 'public'],
  ['192.0.0.10/32', 'public'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

const ipv6Table: RangeTable = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'reserved'],
  ['100:0:0:1::/64', 'reserved'],
  ['2001:1::1/128', 'public'],
  ['2001:1::2/128', 'public'],
  ['2001:1::3/128', 'public'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:3::/32', 'public'],
  ['2001:4:112::/48', 'public'],
  ['2001:20::/28', 'public'],
  ['2001:30::/28', 'public'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'reserved'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'],
  ['2000::/3', 'public'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
  // Everything else in IPv6 is unallocated.
  ['::/0', 'reserved'],
]);

const ipv4Mapped = cidr('::ffff:0:0/96');
const ipv4Translated = cidr('::ffff:0:0:0/96');
const ipv4Compatible = cidr('::/96');
const nat64 = cidr('64:ff9b::/96');
const nat64Local = cidr('64:ff9b:1::/48');
const sixToFour = cidr('2002::/16');
const teredo = cidr('2001::/32');

function lookupCategory(rangeTable: RangeTable, bytes: Uint8Array): AddressCategory | undefined {
  for (const [block, category] of rangeTable) if (cidrContains(block, bytes)) return category;
  return undefined;
}

/** The IPv4 entries (metadata first, then ranges) as 32-bit network and mask, for a cheap per-address scan. */
const ipv4Masks: ReadonlyArray<{ network: number; mask: number; category: AddressCategory }> = [
  ...metadataTable,
  ...ipv4Table,
]
  .filter(([block]) => block.bytes.length === 4)
  .map(([block, category]) => {
    const mask = block.prefixLength === 0 ? 0 : (0xffffffff << (32 - block.prefixLength)) >>> 0;
    return { network: (ipv4Number(block.bytes) & mask) >>> 0, mask, category };
  });

function ipv4Number(bytes: Uint8Array): number {
  return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}

function classifyIpv4Bytes(bytes: Uint8Array): AddressCategory {
  const value = ipv4Number(bytes);
  for (const entry of ipv4Masks) if ((value & entry.mask) >>> 0 === entry.network) return entry.category;
  return 'public';
}

/** Categories ordered from least to most dangerous, to pick the worse of two embedded addresses. */
const severity: readonly AddressCategory[] = [
  'public',
  'documentation',
  'benchmarking',
  'reserved',
  'shared-address-space',
  'site-local',
  'unique-local',
  'private',
  'multicast',
  'broadcast',
  'unspecified',
  'loopback',
  'link-local',
  'cloud-metadata',
];

/** The IPv4 addresses an IPv6 address carries, and in which form; empty when it carries none. */
function embeddedIpv4(bytes: Uint8Array): { form: EmbeddedIpv4Form; addresses: Uint8Array[] } | undefined {
  if (cidrContains(ipv4Mapped, bytes)) return { form: 'ipv4-mapped', addresses: [bytes.slice(12, 16)] };
  if (cidrContains(ipv4Translated, bytes))
    return { form: 'ipv4-translated', addresses: [bytes.slice(12, 16)] };
  if (cidrContains(nat64, bytes)) return { form: 'nat64', addresses: [bytes.slice(12, 16)] };
  if (cidrContains(nat64Local, bytes)) return { form: 'nat64-local', addresses: [bytes.slice(12, 16)] };
  if (cidrContains(sixToFour, bytes)) return { form: '6to4', addresses: [bytes.slice(2, 6)] };
  if (cidrContains(teredo, bytes)) {
    // Teredo: the server's IPv4 address in bits 32-63, the client's (bit-inverted) in the last 32 bits.
    const client = bytes.slice(12, 16).map((byte) => byte ^ 0xff);
    return { form: 'teredo', addresses: [bytes.slice(4, 8), client] };
  }
  // ::/96 minus :: and ::1 (handled by the table, which runs first for those two).
  if (cidrContains(ipv4Compatible, bytes))
    return { form: 'ipv4-compatible', addresses: [bytes.slice(12, 16)] };
  return undefined;
}

/**
 * Classifies an IP address written in any form {@link parseHostLiteral} accepts (`127.1`, `0x7f.1`,
 * `[::ffff:7f00:1]`, `fe80::1%eth0`, ...). Throws a `TypeError` when the text is not an IP address.
 */
export function classifyAddress(address: string): AddressClassification {
  const parsed = parseHostLiteral(address);
  if (parsed.type !== 'ipv4' && parsed.type !== 'ipv6') throw new TypeError('Not an IP address');
  return classifyIpLiteral(parsed).classification;
}

const reachesEmbeddedAddress: ReadonlySet<EmbeddedIpv4Form> = new Set([
  'ipv4-mapped',
  'ipv4-translated',
  'nat64',
]);

/**
 * Classifies an already parsed address; also returns the bytes of the embedded IPv4 address when packets to
 * the IPv6 address reach that IPv4 address (mapped, translated, NAT64), so an allow-listed IPv4 block covers them.
 */
export function classifyIpLiteral(literal: IpHostLiteral): {
  classification: AddressClassification;
  embeddedBytes?: Uint8Array;
} {
  const { bytes, address } = literal;
  if (literal.type === 'ipv4')
    return { classification: { address, family: 4, category: classifyIpv4Bytes(bytes) } };
  const direct = lookupCategory(metadataTable, bytes);
  if (direct !== undefined) return { classification: { address, family: 6, category: direct } };
  const unspecifiedOrLoopback =
    bytes.every((byte, index) => index === 15 || byte === 0) && (bytes[15] ?? 0) <= 1;
  const embedded = unspecifiedOrLoopback ? undefined : embeddedIpv4(bytes);
  if (embedded === undefined) {
    return {
      classification: { address, family: 6, category: lookupCategory(ipv6Table, bytes) ?? 'reserved' },
    };
  }
  let worst: { category: AddressCategory; bytes: Uint8Array } | undefined;
  for (const candidate of embedded.addresses) {
    const category = classifyIpv4Bytes(candidate);
    if (worst === undefined || severity.indexOf(category) > severity.indexOf(worst.category)) {
      worst = { category, bytes: candidate };
    }
  }
  const decided = worst ?? { category: 'reserved' as const, bytes: new Uint8Array(4) };
  let category = decided.category;
  // A public IPv4 address behind a form that is itself not globally routed keeps that form's nature.
  if (category === 'public' && embedded.form === 'ipv4-compatible') category = 'reserved';
  if (category === 'public' && embedded.form === 'nat64-local') category = 'private';
  return {
    classification: {
      address,
      family: 6,
      category,
      embeddedIpv4: { address: decided.bytes.join('.'), form: embedded.form },
    },
    // Only forms that deliver packets to the IPv4 address itself let an allow-listed IPv4 block match.
    ...(reachesEmbeddedAddress.has(embedded.form) ? { embeddedBytes: decided.bytes } : {}),
  };
}
