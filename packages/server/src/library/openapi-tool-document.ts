import { parseOpenApiDocument } from '@toolbus/openapi';
import { ServerError } from '../http/server-error.ts';

/** An OpenAPI document an admin adds as a persona's tools, checked: its stored form, title and operation count. */
export interface OpenApiToolDocument {
  /** The document as stored (a string given is parsed to JSON first). */
  readonly document: unknown;
  readonly title: string | undefined;
  readonly operations: number;
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/**
 * Takes the document given, or fetches it from `url` through the (guarded) fetch, and checks that it is a valid
 * OpenAPI document; a failure is `invalid_request` naming the field it came from.
 */
export async function loadOpenApiToolDocument(options: {
  readonly document?: unknown;
  readonly url?: string | undefined;
  readonly fetch: typeof fetch;
  /** Largest document fetched by URL (default 5 MiB). */
  readonly maxDocumentBytes?: number | undefined;
}): Promise<OpenApiToolDocument> {
  let document = options.document;
  if (document === undefined) {
    if (!options.url) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body.document',
        message: 'body.document: give a document or a url.',
      });
    }
    document = await fetchDocument({ ...options, url: options.url });
  }
  let parsed: Awaited<ReturnType<typeof parseOpenApiDocument>>;
  try {
    parsed = await parseOpenApiDocument(document as Parameters<typeof parseOpenApiDocument>[0]);
  } catch (error) {
    const field = options.url ? 'body.url' : 'body.document';
    throw new ServerError({
      code: 'invalid_request',
      field,
      message: `${field}: not a valid OpenAPI document: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const title = (parsed as unknown as { document?: { info?: { title?: string } } }).document?.info?.title;
  const stored = typeof document === 'string' ? (JSON.parse(document) as unknown) : document;
  const operations = Object.values((stored as { paths?: Record<string, object> }).paths ?? {}).reduce(
    (count, methods) => count + Object.keys(methods).filter((key) => httpMethods.has(key)).length,
    0,
  );
  return { document: stored, title, operations };
}

async function fetchDocument(options: {
  readonly url: string;
  readonly fetch: typeof fetch;
  readonly maxDocumentBytes?: number | undefined;
}): Promise<string> {
  const limit = options.maxDocumentBytes ?? 5 * 1024 * 1024;
  const refused = (reason: string) =>
    new ServerError({ code: 'invalid_request', field: 'body.url', message: `body.url: ${reason}` });
  let response: Response;
  try {
    response = await options.fetch(options.url, { redirect: 'follow', signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw refused(`could not fetch the document: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) throw refused(`the server answered ${response.status}.`);
  const text = await response.text();
  if (Buffer.byteLength(text) > limit) throw refused(`the document is over ${limit} bytes.`);
  return text;
}
