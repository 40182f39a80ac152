import type { OpenApiAuth } from '@toolbus/spec';
import type { ToolRowSource } from '../persona.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { StorageError } from '../storage-error.ts';

/** A tool row's source as columns: exactly one of built-in id, OpenAPI document (JSON text), MCP server. */
export type ToolRowColumns = Pick<
  StorageSchema['persona_tools'],
  | 'built_in_id'
  | 'openapi_name'
  | 'openapi_document'
  | 'openapi_auth_secret'
  | 'mcp_server_id'
  | 'mcp_tool_name'
>;

/** The columns of a tool row's source; OpenAPI auth sealed by `seal`. `invalid_input` for a non-object document. */
export function toolRowColumns(source: ToolRowSource, seal: (auth: OpenApiAuth) => string): ToolRowColumns {
  const none = {
    built_in_id: null,
    openapi_name: null,
    openapi_document: null,
    openapi_auth_secret: null,
    mcp_server_id: null,
    mcp_tool_name: null,
  };
  switch (source.kind) {
    case 'built-in':
      return { ...none, built_in_id: source.builtInId };
    case 'openapi': {
      const document = JSON.stringify(source.document);
      if (document === undefined || typeof source.document !== 'object' || source.document === null) {
        throw new StorageError({
          code: 'invalid_input',
          message: 'An OpenAPI tool row needs a document object.',
        });
      }
      return {
        ...none,
        openapi_name: source.name,
        openapi_document: document,
        openapi_auth_secret: source.auth ? seal(source.auth) : null,
      };
    }
    case 'mcp':
      return { ...none, mcp_server_id: source.serverId, mcp_tool_name: source.toolName };
    default:
      throw new StorageError({ code: 'invalid_input', message: 'Unknown tool row source kind.' });
  }
}

/** The source a tool row's columns describe; sealed OpenAPI auth opened by `openAuth`. */
export function toolRowSource(
  columns: ToolRowColumns,
  openAuth: (sealed: string) => OpenApiAuth,
): ToolRowSource {
  if (columns.built_in_id !== null) return { kind: 'built-in', builtInId: columns.built_in_id };
  if (columns.mcp_server_id !== null && columns.mcp_tool_name !== null) {
    return { kind: 'mcp', serverId: columns.mcp_server_id, toolName: columns.mcp_tool_name };
  }
  const document = JSON.parse(columns.openapi_document ?? 'null') as unknown;
  const name = columns.openapi_name ?? '';
  return columns.openapi_auth_secret === null
    ? { kind: 'openapi', name, document }
    : { kind: 'openapi', name, document, auth: openAuth(columns.openapi_auth_secret) };
}
