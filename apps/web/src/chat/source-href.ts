import { client } from '../common/api.ts';

/**
 * Where a source's link opens. A link comes from a tool, so it is hostile: web pages open as they are, an indexed
 * file's `file://` link (which the browser cannot open from a web page) opens the indexed text through the server,
 * and anything else (`javascript:`, `data:`) gets no link at all.
 */
export function sourceHref(link: string | undefined): string | undefined {
  if (!link) return undefined;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return link;
  if (url.protocol === 'file:') return client.documentTextUrl(link);
  return undefined;
}
