/**
 * A header name HTTP allows: an RFC 9110 token. Anything else (a space, a colon, CR/LF) would either be refused
 * by `Headers` or, worse, split one header into two.
 */
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A character HTTP does not allow in a field value: controls other than tab (CR, LF and NUL among them), DEL, and
 * anything above U+00FF (which `Headers` refuses with a TypeError that would fail the whole request).
 */
const illegalValuePattern = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Headers that frame the message or describe one hop, not the request (RFC 9110 §7.6.1, plus `host`,
 * `content-length` and `expect`): the transport sets them, and a value from a caller (an admin's config, a model's
 * arguments) would let the server read a different request from the one sent (request smuggling). Lower-case.
 */
export const FRAMING_HEADERS: readonly string[] = Object.freeze([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** Why a header is not legal HTTP: its name is not a token, or its value holds a forbidden character. */
export type IllegalHeaderReason = 'invalid-name' | 'invalid-value';

/** True when `name` is a header name HTTP allows (an RFC 9110 token). */
export function isLegalHeaderName(name: unknown): name is string {
  return typeof name === 'string' && headerNamePattern.test(name);
}

/** True when `value` is a string HTTP allows as a header field value (see the forbidden characters above). */
export function isLegalHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && !illegalValuePattern.test(value);
}

/** Why this header cannot be sent as it is, or undefined when it is legal HTTP. */
export function illegalHeaderReason(name: string, value: unknown): IllegalHeaderReason | undefined {
  if (!isLegalHeaderName(name)) return 'invalid-name';
  if (!isLegalHeaderValue(value)) return 'invalid-value';
  return undefined;
}

/** One header {@link dropIllegalHeaders} left out. The name is JSON-escaped and the value is never kept. */
export interface DroppedHeader {
  /** The header's name as a JSON string literal, so that a name carrying CR/LF cannot forge log lines. */
  readonly header: string;
  readonly reason: IllegalHeaderReason;
}

/**
 * The legal headers of `headers`, in order, and the ones left out. A stored header with a byte HTTP forbids must
 * never fail the whole request (the `Headers` constructor throws on it): it is dropped, and the caller logs the
 * dropped names (never their values).
 */
export function dropIllegalHeaders(headers: Iterable<readonly [string, string]>): {
  readonly legal: [string, string][];
  readonly dropped: DroppedHeader[];
} {
  const legal: [string, string][] = [];
  const dropped: DroppedHeader[] = [];
  for (const [name, value] of headers) {
    const reason = illegalHeaderReason(name, value);
    if (reason === undefined) legal.push([name, value]);
    else dropped.push({ header: JSON.stringify(name), reason });
  }
  return { legal, dropped };
}
