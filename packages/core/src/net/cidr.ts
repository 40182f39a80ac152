import { parseHostLiteral } from './parse-host-literal.ts';

/** A parsed CIDR block: the network's bytes (4 or 16) and the prefix length in bits. */
export interface Cidr {
  readonly bytes: Uint8Array;
  readonly prefixLength: number;
}

/**
 * Parses `10.0.0.0/8`, `fd00::/8` or a bare address (a /32 or /128). Returns undefined when the text is not a
 * CIDR block, so callers can decide whether that is an error or a host name.
 */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const parsed = parseHostLiteral(addressText);
  if (parsed.type !== 'ipv4' && parsed.type !== 'ipv6') return undefined;
  const bits = parsed.bytes.length * 8;
  if (slash === -1) return { bytes: parsed.bytes, prefixLength: bits };
  const prefixText = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const prefixLength = Number(prefixText);
  if (prefixLength > bits) return undefined;
  return { bytes: parsed.bytes, prefixLength };
}

/** Parses a CIDR block that is known to be valid (module-level tables); throws on a typo. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new TypeError(`Invalid CIDR block: ${text}`);
  return parsed;
}

/** True when `bytes` (an address of the same family) lies inside `block`. */
export function cidrContains(block: Cidr, bytes: Uint8Array): boolean {
  if (block.bytes.length !== bytes.length) return false;
  let remaining = block.prefixLength;
  for (let index = 0; remaining > 0; index += 1) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((block.bytes[index] ?? 0) & mask) !== ((bytes[index] ?? 0) & mask)) return false;
    remaining -= 8;
  }
  return true;
}
