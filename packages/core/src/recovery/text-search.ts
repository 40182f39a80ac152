// Helpers that keep every dialect parser linear in the text length: lower-casing that never shifts indices,
// and a forward search that remembers "not found" so a missing closing tag is looked for once, not once per
// opening tag.

let cachedSource = '';
let cachedLower = '';

/**
 * Lower-cases ASCII letters only, so every index in the result is the same index in the input (full Unicode
 * lower-casing can change the length of a string). The last long result is cached: several parsers ask for
 * the same text.
 */
export function lowerCaseAscii(text: string): string {
  if (text === cachedSource) return cachedLower;
  let lower = text.toLowerCase();
  if (lower.length !== text.length) lower = text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  // Only long texts are cached: lower-casing a needle must not evict the answer every parser reads.
  if (text.length > 256) {
    cachedSource = text;
    cachedLower = lower;
  }
  return lower;
}

/** Finds occurrences of one needle moving forward only; amortised linear over all calls. */
export interface ForwardSearch {
  /** The first index `>= from` where the needle starts, or -1. */
  next(from: number): number;
  /** The needle's length. */
  readonly length: number;
}

/** Creates a {@link ForwardSearch} for `needle` in `haystack` (ASCII case ignored with `ignoreCase`). */
export function createForwardSearch(haystack: string, needle: string, ignoreCase = false): ForwardSearch {
  let cached = -2;
  const pattern = ignoreCase ? new RegExp(escapeRegExp(needle), 'gi') : undefined;
  return {
    length: needle.length,
    next(from) {
      if (cached === -1) return -1;
      if (cached >= from) return cached;
      if (pattern === undefined) cached = haystack.indexOf(needle, from);
      else {
        pattern.lastIndex = from;
        cached = pattern.test(haystack) ? pattern.lastIndex - needle.length : -1;
      }
      return cached;
    },
  };
}

/** True for space, tab, carriage return and line feed. */
export function isWhitespaceCode(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Index of the first non-whitespace character at or after `from` (or `text.length`). */
export function skipWhitespace(text: string, from: number, to = text.length): number {
  let index = from;
  while (index < to && isWhitespaceCode(text.charCodeAt(index))) index++;
  return index;
}

/** Index of the last non-whitespace character at or before `from`, not below `to` (or `to - 1`). */
export function skipWhitespaceBack(text: string, from: number, to = 0): number {
  let index = from;
  while (index >= to && isWhitespaceCode(text.charCodeAt(index))) index--;
  return index;
}

/** Decodes the five XML entities and numeric character references. */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/g, (match, entity: string) => {
    if (entity === 'lt') return '<';
    if (entity === 'gt') return '>';
    if (entity === 'amp') return '&';
    if (entity === 'quot') return '"';
    if (entity === 'apos') return "'";
    const code =
      entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

/** Reads a tool-name-like identifier (`[A-Za-z0-9_.:-]`) starting at `from`; returns its end index. */
export function readIdentifierEnd(text: string, from: number, to = text.length): number {
  let index = from;
  while (index < to && index - from < 256) {
    const code = text.charCodeAt(index);
    const isIdentifier =
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x61 && code <= 0x7a) ||
      code === 0x5f ||
      code === 0x2d ||
      code === 0x2e ||
      code === 0x3a;
    if (!isIdentifier) break;
    index++;
  }
  return index;
}

/** The namespace some models put before a tool name (`functions.get_weather`). */
export const functionsPrefix = 'functions.';

/** The namespace Gemini and Gemma put before a tool name in their `tool_code` (`default_api.get_weather`). */
export const defaultApiPrefix = 'default_api.';

/** The namespaces models put before a tool name. */
export const toolNamespacePrefixes: readonly string[] = [functionsPrefix, defaultApiPrefix];

/** Strips a namespace some models put before a tool name (`functions.`, `default_api.`). */
export function stripFunctionsPrefix(name: string): string {
  for (const prefix of toolNamespacePrefixes) if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

/** Whether `name` carries one of {@link toolNamespacePrefixes}. */
export function hasToolNamespacePrefix(name: string): boolean {
  return toolNamespacePrefixes.some((prefix) => name.startsWith(prefix));
}

/** `text` with the characters regular expressions treat as syntax escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
