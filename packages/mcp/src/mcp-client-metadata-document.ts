// Client ID Metadata Documents (SEP-991, draft-ietf-oauth-client-id-metadata-document): instead of registering
// with every authorization server, the client names itself by an https URL that serves its metadata. An
// authorization server that advertises `client_id_metadata_document_supported` fetches the document from that URL
// and checks the authorization request's `redirect_uri` against it; the SDK then uses the URL as `client_id`. One
// owner for the URL's rules and the document's content, so the server that serves it and the client that names
// itself by it agree.
import type { OAuthClientMetadata } from '@modelcontextprotocol/client';
import { omitUndefined } from '@toolbus/spec';
import { McpConnectionError } from './errors/mcp-connection-error.ts';

/** Options for {@link mcpClientMetadataDocument}. */
export interface McpClientMetadataDocumentOptions {
  /** The document's own URL: it is the client id. */
  readonly clientMetadataUrl: string;
  /** Where authorization servers may send the browser back (the application's OAuth callback). */
  readonly redirectUris: readonly string[];
  /** Shown on the authorization server's consent page (default `toolbus`). */
  readonly clientName?: string | undefined;
  /** The application's home page, when it has a public one. */
  readonly clientUri?: string | undefined;
}

/** The document a Client ID Metadata Document URL serves. */
export type McpClientMetadataDocument = OAuthClientMetadata & { readonly client_id: string };

/**
 * Checks a Client ID Metadata Document URL: https, a path other than `/`, no fragment, no credentials (the
 * draft's rules; the SDK refuses anything else at authorization time, later and less clearly). Returns it
 * normalised, or throws `mcp_invalid_config` naming `field`.
 */
export function checkMcpClientMetadataUrl(value: string, field = 'clientMetadataUrl'): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const problem =
    url === undefined
      ? 'is not a URL'
      : url.protocol !== 'https:'
        ? 'must be https (authorization servers fetch it)'
        : url.pathname === '/' || url.pathname === ''
          ? 'needs a path (e.g. /oauth/client-metadata.json)'
          : url.hash !== '' || url.username !== '' || url.password !== ''
            ? 'must have no fragment and no credentials'
            : undefined;
  if (problem !== undefined || url === undefined) {
    throw new McpConnectionError({
      code: 'mcp_invalid_config',
      message: `${field}: ${JSON.stringify(value.slice(0, 200))} ${problem ?? 'is not valid'}.`,
      serverName: '',
    });
  }
  return url.href;
}

/**
 * The metadata document served at `clientMetadataUrl`: a public client (PKCE, no secret: anyone can read the
 * document, so it can carry none) that uses the authorization code and refresh token grants.
 */
export function mcpClientMetadataDocument(
  options: McpClientMetadataDocumentOptions,
): McpClientMetadataDocument {
  return omitUndefined({
    client_id: checkMcpClientMetadataUrl(options.clientMetadataUrl),
    client_name: options.clientName ?? 'toolbus',
    client_uri: options.clientUri,
    redirect_uris: [...options.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
}
