// Lenient readers for provider answers: a provider's JSON is untrusted input, so fields are checked one by one
// and a result without a usable URL is skipped rather than failing the whole answer.

/** The value as a plain object, or an empty one. */
export function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The value as an array, or an empty one. */
export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The value as a trimmed string with HTML tags and entities reduced to text (Brave and Google mark matches up). */
export function textOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]{0,200}>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_entity, name: string) => entities[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** An http(s) URL string, or undefined. */
export function httpUrlOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Joins an endpoint path to a base URL that may itself have a path (a self-hosted SearXNG under /searx). */
export function endpointUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}
