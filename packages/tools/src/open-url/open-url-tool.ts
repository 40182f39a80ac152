import { defineTool } from '@toolbus/core';
import type { CitedDocument, FetchFunction, Tool } from '@toolbus/spec';
import { ToolCallError } from '@toolbus/spec';
import * as z from 'zod';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { normalizeUrl } from './normalize-url.ts';
import { openPage, type PageOutcome, type RequestedPage } from './open-page.ts';

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

/** The non-empty URLs of a call, normalised, each page once. */
function requestedPages(urls: readonly string[]): RequestedPage[] {
  const requested: RequestedPage[] = [];
  const seen = new Set<string>();
  for (const raw of urls) {
    const original = raw.trim();
    if (original === '') continue;
    const normalized = normalizeUrl(original);
    const key = normalized ?? original;
    if (seen.has(key)) continue;
    seen.add(key);
    requested.push({ original, normalized });
  }
  return requested;
}

/** What the model reads: a header, one section per page (numbered, or why it failed), and the dropped URLs. */
function openedPagesText(options: {
  readonly outcomes: readonly PageOutcome[];
  readonly cited: readonly CitedDocument[];
  readonly dropped: readonly RequestedPage[];
  readonly maxUrls: number;
}): { readonly text: string; readonly sections: readonly string[] } {
  const { outcomes, cited, dropped } = options;
  const byId = new Map<string, CitedDocument>(cited.map((document) => [document.id, document]));
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
          `Only the first ${options.maxUrls} URLs were opened; not opened: ${dropped.map((url) => url.original).join(', ')}.`,
        ]
      : [];
  return { text: [header, ...sections, ...footer].join('\n\n'), sections };
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
      const requested = requestedPages(args.urls);
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
        requested.map(async (page): Promise<PageOutcome> => {
          const outcome = await openPage({
            page,
            fetch: options.fetch,
            index: options.index,
            signal: context.signal,
            maxBytes,
            timeoutMs,
            maxChars,
          });
          done += 1;
          context.emitter.emit({
            type: 'tool-progress',
            toolCallId: context.call.id,
            message: `${'failure' in outcome ? 'Could not open' : 'Read'} ${page.original} (${done}/${requested.length})`,
          });
          return outcome;
        }),
      );
      if (context.signal.aborted) throw context.signal.reason;

      const cited = context.citations.assign(
        outcomes.flatMap((outcome) => ('document' in outcome ? [outcome.document] : [])),
      );
      if (cited.length > 0) {
        context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents: cited });
      }
      const { text, sections } = openedPagesText({ outcomes, cited, dropped, maxUrls });
      // No page opened is a failed call (the UI marks it so), with every reason for the model to read.
      if (cited.length === 0) {
        throw new ToolCallError({
          code: 'no_page_opened',
          message: sections.map((section) => section.replace(/\.$/, '')).join('; '),
          modelMessage: text,
        });
      }
      return { llmFacing: text, rich: { type: 'documents', documents: cited } };
    },
  });
}
