import { isIPv6 } from 'node:net';

/** An IP address written as a host, in canonical form, with its bytes (4 for IPv4, 16 for IPv6). */
export type IpHostLiteral = IpHostLiteralFields & ({ readonly type: 'ipv4' } | { readonly type: 'ipv6' });

/** The fields of an {@link IpHostLiteral}. */
export interface IpHostLiteralFields {
  /** Canonical text: dotted quad, or RFC 5952 compressed lowercase IPv6 without brackets or zone. */
  readonly address: string;
  readonly bytes: Uint8Array;
  /** The IPv6 zone id (`fe80::1%eth0` → `eth0`), when one was written. */
  readonly zone?: string;
}

/** What a host string denotes once parsed the way the WHATWG URL parser and the OS resolver would. */
export type ParsedHost =
  | IpHostLiteral
  | { readonly type: 'name' /** Lowercased, without trailing dots. */; readonly name: string }
  | { readonly type: 'invalid'; readonly reason: string };

const decimalDigits = /^[0-9]+$/;
const octalDigits = /^[0-7]*$/;
const hexDigits = /^[0-9a-f]*$/i;

/**
 * Parses a host (as in a URL, a `Host` header or a DNS answer) into an IP literal, a name, or invalid.
 * IPv4 follows the WHATWG URL "IPv4 parser", which also matches what `inet_aton` accepts: decimal
 * (`2130706433`), octal parts (`0177.0.0.1`), hex parts (`0x7f.1`), short forms (`127.1`) and one trailing dot. A
 * host that ends in a number but is no valid IPv4 address (`1.2.3.4.5`, `256.1.1.1`) is invalid, never a name:
 * a resolver might still treat it as an address, so a guard must not wave it through as a harmless name.
 * IPv6 may be bracketed, carry a zone id (`%eth0` or the URL form `%25eth0`) and end in a dotted quad.
 */
export function parseHostLiteral(host: string): ParsedHost {
  let text = host.trim();
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) return { type: 'invalid', reason: 'unclosed IPv6 bracket' };
    return parseIpv6(text.slice(1, -1));
  }
  if (text.includes(':')) return parseIpv6(text);
  text = text.toLowerCase();
  if (text.length === 0) return { type: 'invalid', reason: 'empty host' };
  const ipv4 = parseIpv4(text);
  if (ipv4 !== undefined) return ipv4;
  const name = text.replace(/\.+$/, '');
  if (name.length === 0) return { type: 'invalid', reason: 'empty host' };
  return { type: 'name', name };
}

const dottedDecimal =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;

/** Returns the IPv4 literal, an invalid result for a host that ends in a number, or undefined for a name. */
function parseIpv4(text: string): IpHostLiteral | { type: 'invalid'; reason: string } | undefined {
  // Fast path for the canonical spelling, which is what DNS answers and WHATWG-serialised URLs contain.
  const canonical = dottedDecimal.exec(text);
  if (canonical !== null) {
    const bytes = new Uint8Array([
      Number(canonical[1]),
      Number(canonical[2]),
      Number(canonical[3]),
      Number(canonical[4]),
    ]);
    return { type: 'ipv4', address: text, bytes };
  }
  const parts = text.split('.');
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  const last = parts.at(-1) ?? '';
  if (!(decimalDigits.test(last) || parseIpv4Number(last) !== undefined)) return undefined;
  if (parts.length > 4) return { type: 'invalid', reason: 'more than four parts in a numeric host' };
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIpv4Number(part);
    if (value === undefined) return { type: 'invalid', reason: 'numeric host with a non-numeric part' };
    numbers.push(value);
  }
  const lastNumber = numbers.pop() ?? 0;
  if (numbers.some((value) => value > 255)) return { type: 'invalid', reason: 'numeric host part above 255' };
  // Doubles are exact up to 2^53; anything larger is far out of range anyway, so the comparison stays correct.
  if (lastNumber >= 256 ** (5 - parts.length))
    return { type: 'invalid', reason: 'numeric host out of range' };
  let value = lastNumber;
  numbers.forEach((part, index) => {
    value += part * 256 ** (3 - index);
  });
  const bytes = new Uint8Array([
    Math.floor(value / 2 ** 24) & 255,
    (value >>> 16) & 255,
    (value >>> 8) & 255,
    value & 255,
  ]);
  return { type: 'ipv4', address: bytes.join('.'), bytes };
}

/** The WHATWG "IPv4 number parser": `0x` prefix is hex, a leading `0` is octal, else decimal. */
function parseIpv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  let digits = part;
  let radix = 10;
  if (digits.length >= 2 && (digits.startsWith('0x') || digits.startsWith('0X'))) {
    digits = digits.slice(2);
    radix = 16;
  } else if (digits.length >= 2 && digits.startsWith('0')) {
    digits = digits.slice(1);
    radix = 8;
  }
  if (digits === '') return 0;
  const valid = radix === 16 ? hexDigits : radix === 8 ? octalDigits : decimalDigits;
  if (!valid.test(digits)) return undefined;
  return Number.parseInt(digits, radix);
}

function parseIpv6(text: string): IpHostLiteral | { type: 'invalid'; reason: string } {
  let address = text;
  let zone: string | undefined;
  const percent = address.indexOf('%');
  if (percent !== -1) {
    zone = address.slice(percent + 1);
    if (zone.startsWith('25')) zone = zone.slice(2);
    address = address.slice(0, percent);
    if (zone === '') return { type: 'invalid', reason: 'empty IPv6 zone id' };
  }
  if (!isIPv6(address)) return { type: 'invalid', reason: 'malformed IPv6 address' };
  const bytes = ipv6Bytes(address.toLowerCase());
  const result: IpHostLiteral = { type: 'ipv6', address: formatIpv6(bytes), bytes };
  return zone === undefined ? result : { ...result, zone };
}

/** Expands a syntactically valid IPv6 address (checked by `net.isIPv6`) into 16 bytes. */
function ipv6Bytes(address: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let text = address;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const lastGroup = text.slice(lastColon + 1);
  if (lastGroup.includes('.')) {
    tail = lastGroup.split('.').map((part) => Number(part));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? headGroups
      : [
          ...headGroups,
          ...new Array<string>(8 - headGroups.length - restGroups.length).fill('0'),
          ...restGroups,
        ];
  groups.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 255;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

/** RFC 5952 text of 16 bytes: lowercase, no leading zeros, the longest run (≥ 2) of zero groups as `::`. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
