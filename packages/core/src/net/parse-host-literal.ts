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
  | { readonly type: 'name' /** Lowercased, IDNA ASCII, without trailing dots. */; readonly name: string }
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
  text = toAsciiHost(text.toLowerCase());
  if (text.length === 0) return { type: 'invalid', reason: 'empty host' };
  const ipv4 = parseIpv4(text);
  if (ipv4 !== undefined) return ipv4;
  const name = text.replace(/\.+$/, '');
  if (name.length === 0) return { type: 'invalid', reason: 'empty host' };
  return { type: 'name', name };
}

/**
 * A host name in the one form names are compared in: lower case, IDNA (`bücher.example` → `xn--bcher-kva.example`,
 * full-width dots and letters mapped as the URL parser maps them), no trailing dot. IP literals come back in their
 * canonical text. Whatever is not a valid host comes back trimmed and lowercased, so it still compares as itself.
 */
export function canonicalHostName(host: string): string {
  const parsed = parseHostLiteral(host);
  if (parsed.type === 'name') return parsed.name;
  if (parsed.type === 'invalid') return host.trim().toLowerCase();
  return parsed.address;
}

/** IDNA's ToASCII as the WHATWG URL parser applies it (no Node import: the core root runs in browsers too). */
function toAsciiHost(text: string): string {
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  try {
    return new URL(`http://${text}/`).hostname;
  } catch {
    return text;
  }
}

/** Parses the canonical dotted quad (decimal, no leading zeros) in one pass; undefined for anything else. */
function parseDottedDecimal(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(4);
  let part = 0;
  let value = -1;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 46) {
      if (value === -1 || part === 3) return undefined;
      bytes[part] = value;
      part += 1;
      value = -1;
      continue;
    }
    const digit = code - 48;
    if (digit < 0 || digit > 9 || value === 0) return undefined;
    value = value === -1 ? digit : value * 10 + digit;
    if (value > 255) return undefined;
  }
  if (part !== 3 || value === -1) return undefined;
  bytes[3] = value;
  return bytes;
}

/** Returns the IPv4 literal, an invalid result for a host that ends in a number, or undefined for a name. */
function parseIpv4(text: string): IpHostLiteral | { type: 'invalid'; reason: string } | undefined {
  // Fast path for the canonical spelling, which is what DNS answers and WHATWG-serialised URLs contain.
  const canonical = parseDottedDecimal(text);
  if (canonical !== undefined) return { type: 'ipv4', address: text, bytes: canonical };
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
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return { type: 'invalid', reason: 'malformed IPv6 address' };
  const result: IpHostLiteral = { type: 'ipv6', address: formatIpv6(bytes), bytes };
  return zone === undefined ? result : { ...result, zone };
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/**
 * Parses IPv6 text (no brackets, no zone) into 16 bytes in one pass, or undefined when malformed: the WHATWG URL
 * "IPv6 parser", which accepts the same addresses as `net.isIPv6` (the tests compare both on random input).
 */
function ipv6Bytes(input: string): Uint8Array | undefined {
  const pieces = new Uint16Array(8);
  const length = input.length;
  let pieceIndex = 0;
  let compress = -1;
  let pointer = 0;
  if (input.charCodeAt(0) === 58) {
    if (input.charCodeAt(1) !== 58) return undefined;
    pointer = 2;
    pieceIndex = 1;
    compress = 1;
  }
  while (pointer < length) {
    if (pieceIndex === 8) return undefined;
    if (input.charCodeAt(pointer) === 58) {
      if (compress !== -1) return undefined;
      pointer += 1;
      pieceIndex += 1;
      compress = pieceIndex;
      continue;
    }
    let value = 0;
    let digits = 0;
    while (digits < 4 && pointer < length) {
      const digit = hexValue(input.charCodeAt(pointer));
      if (digit === -1) break;
      value = value * 16 + digit;
      pointer += 1;
      digits += 1;
    }
    const code = input.charCodeAt(pointer);
    if (code === 46) {
      // A trailing dotted quad: strict decimal, no leading zeros, exactly four parts.
      if (digits === 0 || pieceIndex > 6) return undefined;
      pointer -= digits;
      let numbersSeen = 0;
      while (pointer < length) {
        if (numbersSeen > 0) {
          if (input.charCodeAt(pointer) !== 46 || numbersSeen >= 4) return undefined;
          pointer += 1;
        }
        let part = -1;
        while (pointer < length) {
          const digit = input.charCodeAt(pointer) - 48;
          if (digit < 0 || digit > 9) break;
          if (part === 0) return undefined;
          part = part === -1 ? digit : part * 10 + digit;
          if (part > 255) return undefined;
          pointer += 1;
        }
        if (part === -1) return undefined;
        pieces[pieceIndex] = (pieces[pieceIndex] ?? 0) * 256 + part;
        numbersSeen += 1;
        if (numbersSeen === 2 || numbersSeen === 4) pieceIndex += 1;
      }
      if (numbersSeen !== 4) return undefined;
      break;
    }
    if (code === 58) {
      pointer += 1;
      if (pointer >= length) return undefined;
    } else if (pointer < length) {
      return undefined;
    }
    pieces[pieceIndex] = value;
    pieceIndex += 1;
  }
  if (compress !== -1) {
    let swaps = pieceIndex - compress;
    pieceIndex = 7;
    while (pieceIndex !== 0 && swaps > 0) {
      const other = compress + swaps - 1;
      const held = pieces[pieceIndex] ?? 0;
      pieces[pieceIndex] = pieces[other] ?? 0;
      pieces[other] = held;
      pieceIndex -= 1;
      swaps -= 1;
    }
  } else if (pieceIndex !== 8) {
    return undefined;
  }
  const bytes = new Uint8Array(16);
  for (let index = 0; index < 8; index += 1) {
    const piece = pieces[index] ?? 0;
    bytes[index * 2] = piece >> 8;
    bytes[index * 2 + 1] = piece & 255;
  }
  return bytes;
}

/** RFC 5952 text of 16 bytes: lowercase, no leading zeros, the longest run (≥ 2) of zero groups as `::`. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups = new Uint16Array(8);
  for (let index = 0; index < 8; index += 1)
    groups[index] = ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0);
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let index = 0; index <= 8; index += 1) {
    if (index < 8 && groups[index] === 0) {
      if (runStart === -1) runStart = index;
    } else if (runStart !== -1) {
      if (index - runStart > bestLength) {
        bestStart = runStart;
        bestLength = index - runStart;
      }
      runStart = -1;
    }
  }
  let text = '';
  for (let index = 0; index < 8; index += 1) {
    if (index === bestStart) {
      text += '::';
      index += bestLength - 1;
      continue;
    }
    if (text !== '' && !text.endsWith(':')) text += ':';
    text += (groups[index] ?? 0).toString(16);
  }
  return text;
}
