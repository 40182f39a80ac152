import { createOpenApiTools, type OpenApiFileStore } from '@toolbus/openapi';
import type { FetchFunction, WarningLogger } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { PersonaToolRow } from '@toolbus/storage';
import { messageOf, type RowOutcome, skippedRow } from './row-outcome.ts';
import type { ToolAssemblyCache } from './tool-assembly-cache.ts';

/** OpenAPI settings of an assembly. */
export interface AssemblyOpenApiOptions {
  readonly fileStore?: OpenApiFileStore;
  readonly maxResponseBytes?: number;
  readonly timeoutMs?: number;
  /** Receives the credential headers dropped for a byte HTTP forbids, by name (default: `console.warn`). */
  readonly logger?: WarningLogger;
}

/** One tool per operation of an OpenAPI row (the parsed document cached); a refused document is a skip. */
export async function buildOpenApiTools(input: {
  readonly row: PersonaToolRow & { readonly source: { readonly kind: 'openapi' } };
  readonly fetch: FetchFunction;
  readonly cache: ToolAssemblyCache | undefined;
  readonly options: AssemblyOpenApiOptions | undefined;
}): Promise<RowOutcome> {
  const { row, options } = input;
  const source = row.source;
  if (source.kind !== 'openapi') throw new TypeError('buildOpenApiTools needs an OpenAPI row');
  try {
    const document = input.cache ? await input.cache.parsedDocument(source.document) : source.document;
    const tools = await createOpenApiTools({
      document: document as Parameters<typeof createOpenApiTools>[0]['document'],
      fetch: input.fetch,
      ...omitUndefined({
        auth: source.auth,
        fileStore: options?.fileStore,
        maxResponseBytes: options?.maxResponseBytes,
        timeoutMs: options?.timeoutMs,
        logger: options?.logger,
      }),
    });
    return { entries: tools.map((tool) => ({ rowId: row.id, kind: 'openapi', tool })), skipped: [] };
  } catch (error) {
    return skippedRow(
      { rowId: row.id, source: 'openapi' },
      'openapi-failed',
      `The OpenAPI tool "${source.name}" was refused: ${messageOf(error)}`,
    );
  }
}
