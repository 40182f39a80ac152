import { decodeXmlEntities } from './text-search.ts';

const attributePattern = /([A-Za-z_][\w:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
/** An opening tag longer than this (from its name to its `>`) is not parsed: markup tags are short. */
export const maximumOpeningTagLength = 2048;

/** An opening tag's attributes and where the tag ends. */
export interface ParsedOpeningTag {
  readonly attributes: ReadonlyMap<string, string>;
  /** Index just after the tag's `>`. */
  readonly end: number;
  /** Written `<tag …/>`: the element has no content and no closing tag. */
  readonly selfClosing: boolean;
}

/**
 * Parses the attributes of an opening tag starting at `from` (just after the tag name) up to its `>`. The tag
 * is at most 2 KiB long, so the regular expression only ever runs over a bounded slice.
 */
export function parseOpeningTag(text: string, from: number): ParsedOpeningTag | undefined {
  const close = text.indexOf('>', from);
  if (close < 0 || close - from > maximumOpeningTagLength) return undefined;
  const attributes = new Map<string, string>();
  for (const match of text.slice(from, close).matchAll(attributePattern)) {
    const value = match[2] ?? match[3] ?? match[4] ?? '';
    attributes.set(match[1]!.toLowerCase(), decodeXmlEntities(value));
  }
  return { attributes, end: close + 1, selfClosing: text.charCodeAt(close - 1) === 0x2f };
}
