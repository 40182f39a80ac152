import { documentTextQuery } from '@toolbus/api-schema';
import type { DocumentSearchIndex, SearchHit } from '@toolbus/tools';
import type { RouteRegistry } from '../http/route-registry.ts';
import { notFoundError } from '../http/server-error.ts';

/** The path a citation's `file://` link opens through (`?link=`). */
export const DOCUMENT_TEXT_PATH = '/v1/documents/text';

// Consecutive chunks repeat the end of the one before (chunk-text.ts's overlap): shorter repeats are taken as
// chance, not overlap.
const minimumOverlap = 8;
const maximumOverlap = 600;

/** A document's text again from its chunks in order, each chunk's repeat of the previous one's end dropped. */
export function joinChunks(chunks: readonly string[]): string {
  let text = '';
  let previous = '';
  for (const chunk of chunks) {
    let overlap = 0;
    for (
      let length = Math.min(previous.length, chunk.length, maximumOverlap);
      length >= minimumOverlap;
      length -= 1
    ) {
      if (previous.endsWith(chunk.slice(0, length))) {
        overlap = length;
        break;
      }
    }
    if (text === '') text = chunk;
    else if (overlap > 0) text += chunk.slice(overlap);
    else text += `\n\n${chunk}`;
    previous = chunk;
  }
  return text;
}

/**
 * Registers `GET /v1/documents/text?link=`: the text of a document indexed in the caller's organisation, found by
 * its link. A citation of an indexed file carries a `file://` link the browser cannot (and must not) open; the web
 * app opens this instead. It serves what the index holds, which anyone who can chat could already find through
 * internal_search, never a path read from disk: a link that is not an indexed document of the caller's
 * organisation is a 404.
 */
export function registerDocumentTextRoute(
  registry: RouteRegistry,
  index: DocumentSearchIndex | undefined,
): void {
  registry.add(
    {
      method: 'get',
      path: DOCUMENT_TEXT_PATH,
      operationId: 'getDocumentText',
      summary: "An indexed document's text by its link (what a citation of a file:// document opens)",
      tag: 'documents',
      access: { kind: 'user', scope: 'chat' },
      query: documentTextQuery,
      responses: {
        200: { description: "The document's text, as indexed", contentType: 'text/plain' },
        404: { description: 'No document with that link in your organisation' },
      },
    },
    async ({ principal, query }) => {
      const scoped = index?.forOrganization({ organizationId: principal.organization.id });
      const hits: readonly SearchHit[] = scoped ? await scoped.findByLink(query.link) : [];
      const first = hits[0];
      if (!first) {
        throw notFoundError(
          'query.link',
          `no indexed document of your organisation has the link ${JSON.stringify(query.link)} (it may have been removed from the index).`,
        );
      }
      const ordered = [...hits].sort((a, b) => a.ordinal - b.ordinal);
      const body = `${first.title}\n${'='.repeat(Math.min(first.title.length, 80))}\n\n${joinChunks(ordered.map((hit) => hit.content))}\n`;
      return new Response(body, {
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'x-content-type-options': 'nosniff',
          // The text came from a file someone indexed: never a document the browser would run.
          'content-security-policy': "sandbox; default-src 'none'",
          'cache-control': 'private, no-store',
        },
      });
    },
  );
}
