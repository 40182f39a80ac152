import { defineTool } from '@toolbus/core';
import type { CitedDocument, FetchFunction, SearchDocument, Tool } from '@toolbus/spec';
import { omitUndefined, ToolCallError } from '@toolbus/spec';
import * as z from 'zod';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { fetchPage } from './fetch-page.ts';
import { normalizeUrl, webDocumentId } from './normalize-url.ts';
import { OpenPageError } from './open-page-error.ts';

/** Options for {@link createOpenUrlTool}. */
export interface OpenUrlToolOptions {
  /** Every page request goes through it: pass the guarded fetch. */
  readonly fetch: FetchFunction;
  /** Looked up first: a page whose link is in the index is served from it, not fetched. */
  readonly index?: Pick<DocumentSearchIndex, 'findByLink'>;
  /** URLs opened per call; the rest are dropped with a note. Default 10. */
  readonly maxUrls?: number;
  /** Bytes read per page. Default 5 MiB. */
  readonly maxBytes?: number;
  /** Per page, from the request to the last byte. Default 15 s. */
  readonly timeoutMs?: number;
  /** Characters of each page the model reads. Default 15,000. */
  readonly maxCharsPerPage?: number;
}

type PageOutcome =
  | { readonly url: string; readonly document: SearchDocument; readonly note?: string }
  | { readonly url: string; readonly failure: string };

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

// Made once: the tool is made per turn, and its JSON schema is converted once per schema object.
const openUrlParameters = z.object({
  urls: z.array(z.string()).min(1).describe('Full http(s) URLs to open'),
});

/**
 * `open_url`: reads web pages in full. Each URL is normalised and looked up in the index first (fetched only when
 * not found), then fetched through the given (guarded) fetch with size and time limits; HTML becomes Markdown
 * (Readability), PDFs and text are read as text. Pages fail one by one, each with a reason the model reads. Pages
 * are numbered from the turn's allocator with ids `web:<normalised url>`, so a page web_search already found keeps
 * its number. Streams `open-url-urls` before fetching and `search-documents` after.
 */
export function createOpenUrlTool(options: OpenUrlToolOptions): Tool {
  const maxUrls = options.maxUrls ?? 10;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxChars = options.maxCharsPerPage ?? 15_000;
  return defineTool({
    name: 'open_url',
    displayName: 'Open URL',
    mergeableField: 'urls',
    description:
      'Open web pages and read their full text (HTML pages, PDFs, plain text). Use it on URLs from web_search ' +
      `results or that the user gave. At most ${maxUrls} URLs per call. Cite pages with their [number].`,
    parameters: openUrlParameters,
    exampleArguments: { urls: ['https://nodejs.org/en/about/previous-releases'] },
    async run(args, context) {
      const requested: { original: string; normalized: string | undefined }[] = [];
      const seen = new Set<string>();
      for (const raw of args.urls) {
        const original = raw.trim();
        if (original === '') continue;
        const normalized = normalizeUrl(original);
        const key = normalized ?? original;
        if (seen.has(key)) continue;
        seen.add(key);
        requested.push({ original, normalized });
      }
      if (requested.length === 0) {
        throw new ToolCallError({
          code: 'invalid_arguments',
          message: 'open_url got only empty URLs',
          modelMessage: 'Every URL was empty. Call open_url with full http(s) URLs.',
        });
      }
      const dropped = requested.splice(maxUrls);
      context.emitter.emit({
        type: 'open-url-urls',
        toolCallId: context.call.id,
        urls: requested.map(({ normalized, original }) => normalized ?? original),
      });
      let done = 0;
      const outcomes = await Promise.all(
        requested.map(async ({ original, normalized }): Promise<PageOutcome> => {
          const outcome = await openOne({ original, normalized });
          done += 1;
          context.emitter.emit({
            type: 'tool-progress',
            toolCallId: context.call.id,
            message: `${'failure' in outcome ? 'Could not open' : 'Read'} ${original} (${done}/${requested.length})`,
          });
          return outcome;
        }),
      );
      if (context.signal.aborted) throw context.signal.reason;

      const cited = context.citations.assign(
        outcomes.flatMap((outcome) => ('document' in outcome ? [outcome.document] : [])),
      );
      const byId = new Map<string, CitedDocument>(cited.map((document) => [document.id, document]));
      if (cited.length > 0) {
        context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents: cited });
      }
      const sections = outcomes.map((outcome) => {
        if ('failure' in outcome) return `Could not open ${outcome.url}: ${outcome.failure}.`;
        const document = byId.get(outcome.document.id) ?? { ...outcome.document, citationNumber: 0 };
        return [
          `[${document.citationNumber}] ${document.title}`,
          `URL: ${document.link ?? outcome.url}`,
          ...(outcome.note ? [`(${outcome.note})`] : []),
          document.content,
        ].join('\n');
      });
      const header = `Opened ${cited.length} of ${outcomes.length} page${outcomes.length === 1 ? '' : 's'}.`;
      const footer =
        dropped.length > 0
          ? [
              `Only the first ${maxUrls} URLs were opened; not opened: ${dropped.map((url) => url.original).join(', ')}.`,
            ]
          : [];
      const text = [header, ...sections, ...footer].join('\n\n');
      // No page opened is a failed call (the UI marks it so), with every reason for the model to read.
      if (cited.length === 0) {
        throw new ToolCallError({
          code: 'no_page_opened',
          message: sections.map((section) => section.replace(/\.$/, '')).join('; '),
          modelMessage: text,
        });
      }
      return { llmFacing: text, rich: { type: 'documents', documents: cited } };

      async function openOne(page: {
        original: string;
        normalized: string | undefined;
      }): Promise<PageOutcome> {
        const { original, normalized } = page;
        if (normalized === undefined) return { url: original, failure: 'not a valid http(s) URL' };
        if (/^[a-z]+:\/\/[^/?#]*@/i.test(original)) {
          return { url: original, failure: 'URLs with a user name or password are not opened' };
        }
        const id = webDocumentId(normalized);
        for (const candidate of options.index ? indexCandidates(original, normalized) : []) {
          const chunks = (await options.index?.findByLink(candidate)) ?? [];
          if (chunks.length === 0) continue;
          const content = [...chunks]
            .sort((left, right) => left.ordinal - right.ordinal)
            .map((chunk) => chunk.content)
            .join('\n\n');
          return {
            url: original,
            document: {
              id,
              title: chunks[0]?.title ?? normalized,
              link: candidate,
              blurb: content.slice(0, 240),
              content: cut(content, maxChars),
              sourceType: 'file',
              ...omitUndefined({ updatedAt: chunks[0]?.updatedAt || undefined }),
            },
            note: 'from the indexed copy',
          };
        }
        try {
          const fetched = await fetchPage({
            url: normalized,
            fetch: options.fetch,
            signal: context.signal,
            maxBytes,
            timeoutMs,
          });
          return {
            url: original,
            document: {
              id,
              title: fetched.title || new URL(fetched.finalUrl).hostname,
              link: fetched.finalUrl,
              blurb: fetched.text.slice(0, 240),
              content: cut(fetched.text, maxChars),
              sourceType: 'web',
              isInternet: true,
            },
            ...(fetched.truncated
              ? {
                  note: `the page is larger than ${Math.round(maxBytes / 1024)} KiB; only its beginning was read`,
                }
              : {}),
          };
        } catch (error) {
          if (context.signal.aborted) throw error;
          return {
            url: original,
            failure: OpenPageError.isInstance(error) ? error.message : 'the page could not be read',
          };
        }
      }
    },
  });
}
