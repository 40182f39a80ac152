/**
 * Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus `host` and `content-length`, which the
 * proxy sets itself from the checked URL and the body it actually sends.
 */
const perHop = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** Pairs from a raw header list (`[name, value, name, value, ...]`) without per-hop headers. */
export function endToEndHeaders(rawHeaders: readonly string[]): Array<[string, string]> {
  const named = new Set(perHop);
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === 'connection') {
      for (const token of (rawHeaders[index + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const pairs: Array<[string, string]> = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    if (!named.has(name.toLowerCase())) pairs.push([name, rawHeaders[index + 1] ?? '']);
  }
  return pairs;
}
