/** Query parameters that only track where a click came from; they never change what a page shows. */
const trackingParameter =
  /^(utm_.*|mc_.*|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|igshid|_hsenc|_hsmi)$/i;

/**
 * The canonical form of a web address, so the same page found by web_search, typed by the model or stored in the
 * index gets one document id. Scheme and host lower-cased (the URL parser does that and drops default ports),
 * credentials and fragment dropped, tracking parameters (utm_*, mc_*, gclid, fbclid...) removed, the remaining
 * query sorted by name, and a trailing slash removed except on the root path. Returns `undefined` for anything
 * that is not an http: or https: URL.
 */
export function normalizeUrl(input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.username = '';
  url.password = '';
  url.hash = '';
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  for (const name of [...url.searchParams.keys()]) {
    if (trackingParameter.test(name)) url.searchParams.delete(name);
  }
  url.searchParams.sort();
  if (url.searchParams.size === 0) url.search = '';
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.href;
}

/** The document id of a web page: the same for web_search results and open_url pages, so citations are reused. */
export function webDocumentId(normalizedUrl: string): string {
  return `web:${normalizedUrl}`;
}
