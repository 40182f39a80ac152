// toolbus's own Client ID Metadata Document (SEP-991): with `mcpClientMetadataUrl` set, toolbus names itself to an
// MCP server's authorization server by that https URL instead of registering, wherever the authorization server
// advertises `client_id_metadata_document_supported`, and serves the document at the URL's path. The authorization
// server fetches it and checks the authorization request's redirect URI against it, so the document lists the one
// OAuth callback built on the public origin.
import {
  checkMcpClientMetadataUrl,
  type McpClientMetadataDocument,
  mcpClientMetadataDocument,
} from '@toolbus/mcp';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import { ServerError } from '../http/server-error.ts';
import { MCP_OAUTH_CALLBACK_PATH } from './mcp-oauth-service.ts';

/** The configured document: its URL (the client id), the path it is served at, and its content. */
export interface McpClientMetadata {
  readonly url: string;
  readonly path: string;
  readonly document: McpClientMetadataDocument;
}

/**
 * Checks `mcpClientMetadataUrl` against the public origin and builds the document; `undefined` when it is not set.
 * The URL must be https, on the public origin (toolbus serves the document itself), and have a path outside the
 * API's `/v1/`.
 */
export function resolveMcpClientMetadata(options: {
  readonly url: string | undefined;
  readonly publicOrigin: string | undefined;
}): McpClientMetadata | undefined {
  if (options.url === undefined) return undefined;
  const refuse = (message: string): never => {
    throw new ServerError({ code: 'invalid_request', field: 'mcpClientMetadataUrl', message });
  };
  let url = '';
  try {
    url = checkMcpClientMetadataUrl(options.url, 'mcpClientMetadataUrl');
  } catch (error) {
    refuse(error instanceof Error ? error.message : String(error));
  }
  const parsed = new URL(url);
  if (options.publicOrigin === undefined || parsed.origin !== options.publicOrigin) {
    refuse(
      `mcpClientMetadataUrl: ${JSON.stringify(url)} must be on the public origin (${options.publicOrigin ?? 'none set: set publicOrigin, e.g. --public-origin'}): toolbus serves the document itself, and the document lists the OAuth callback built on that origin.`,
    );
  }
  if (parsed.search !== '' || parsed.pathname.startsWith('/v1/') || parsed.pathname.includes('{')) {
    refuse(
      `mcpClientMetadataUrl: ${JSON.stringify(url)} needs a plain path outside /v1/ (e.g. /oauth/client-metadata.json).`,
    );
  }
  return {
    url,
    path: parsed.pathname,
    document: mcpClientMetadataDocument({
      clientMetadataUrl: url,
      redirectUris: [new URL(MCP_OAUTH_CALLBACK_PATH, options.publicOrigin).href],
      clientUri: options.publicOrigin,
    }),
  };
}

const documentSchema = z.looseObject({
  client_id: z.string(),
  redirect_uris: z.array(z.string()),
});

/** Serves the document at its path, to anyone (authorization servers fetch it without credentials). */
export function registerMcpClientMetadataRoute(registry: RouteRegistry, metadata: McpClientMetadata): void {
  registry.add(
    {
      method: 'get',
      path: metadata.path,
      operationId: 'mcpClientMetadataDocument',
      summary:
        "toolbus's OAuth Client ID Metadata Document: its URL is toolbus's client id at MCP authorization servers that support them",
      tag: 'mcp-connections',
      access: { kind: 'public' },
      responses: { 200: { description: 'The document', schema: documentSchema } },
    },
    async ({ context }) => {
      context.header('cache-control', 'public, max-age=3600');
      return context.json(metadata.document);
    },
  );
}
