import type { FetchFunction, SearchDocument } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { fetchPage } from './fetch-page.ts';
import { webDocumentId } from './normalize-url.ts';
import { OpenPageError } from './open-page-error.ts';

/** A URL as the model wrote it, and its normalised form (undefined when it is not a valid http(s) URL). */
export interface RequestedPage {
  readonly original: string;
  readonly normalized: string | undefined;
}

/** One page of an `open_url` call: its document (with a note for the model), or why it could not be opened. */
export type PageOutcome =
  | { readonly url: string; readonly document: SearchDocument; readonly note?: string }
  | { readonly url: string; readonly failure: string };

/** Options for {@link openPage}. */
export interface OpenPageOptions {
  readonly page: RequestedPage;
  readonly fetch: FetchFunction;
  readonly index: Pick<DocumentSearchIndex, 'findByLink'> | undefined;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxChars: number;
}

/** Where the index may hold a URL: its normalised and original forms, with and without a trailing slash. */
function indexCandidates(original: string, normalized: string): string[] {
  const candidates = [normalized, original];
  for (const candidate of [normalized, original]) {
    candidates.push(candidate.endsWith('/') ? candidate.replace(/\/+$/, '') : `${candidate}/`);
  }
  return [...new Set(candidates)];
}

function cut(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)} [...truncated]` : text;
}

/**
 * Opens one page: refuses invalid URLs and URLs with credentials, serves the index's copy when it holds the link,
 * and fetches it otherwise. A failure is an outcome the model reads, except an abort, which is thrown.
 */
export async function openPage(options: OpenPageOptions): Promise<PageOutcome> {
  const { original, normalized } = options.page;
  if (normalized === undefined) return { url: original, failure: 'not a valid http(s) URL' };
  if (/^[a-z]+:\/\/[^/?#]*@/i.test(original)) {
    return { url: original, failure: 'URLs with a user name or password are not opened' };
  }
  return (
    (await readIndexedCopy(options, original, normalized)) ??
    (await fetchWebPage(options, original, normalized))
  );
}

async function readIndexedCopy(
  options: OpenPageOptions,
  original: string,
  normalized: string,
): Promise<PageOutcome | undefined> {
  if (options.index === undefined) return undefined;
  for (const candidate of indexCandidates(original, normalized)) {
    const chunks = await options.index.findByLink(candidate);
    if (chunks.length === 0) continue;
    const content = [...chunks]
      .sort((left, right) => left.ordinal - right.ordinal)
      .map((chunk) => chunk.content)
      .join('\n\n');
    return {
      url: original,
      document: {
        id: webDocumentId(normalized),
        title: chunks[0]?.title ?? normalized,
        link: candidate,
        blurb: content.slice(0, 240),
        content: cut(content, options.maxChars),
        sourceType: 'file',
        ...omitUndefined({ updatedAt: chunks[0]?.updatedAt || undefined }),
      },
      note: 'from the indexed copy',
    };
  }
  return undefined;
}

async function fetchWebPage(
  options: OpenPageOptions,
  original: string,
  normalized: string,
): Promise<PageOutcome> {
  try {
    const fetched = await fetchPage({
      url: normalized,
      fetch: options.fetch,
      signal: options.signal,
      maxBytes: options.maxBytes,
      timeoutMs: options.timeoutMs,
    });
    return {
      url: original,
      document: {
        id: webDocumentId(normalized),
        title: fetched.title || new URL(fetched.finalUrl).hostname,
        link: fetched.finalUrl,
        blurb: fetched.text.slice(0, 240),
        content: cut(fetched.text, options.maxChars),
        sourceType: 'web',
        isInternet: true,
      },
      ...(fetched.truncated
        ? {
            note: `the page is larger than ${Math.round(options.maxBytes / 1024)} KiB; only its beginning was read`,
          }
        : {}),
    };
  } catch (error) {
    if (options.signal.aborted) throw error;
    return {
      url: original,
      failure: OpenPageError.isInstance(error) ? error.message : 'the page could not be read',
    };
  }
}
