import type { OpenApiAuth } from '@toolbus/spec';
import type { ToolRowSource } from '../persona.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { StorageError } from '../storage-error.ts';

type ToolRow = StorageSchema['persona_tools'];

/**
 * The columns of a tool row's source, exactly one of built-in id, OpenAPI document (JSON text; its auth sealed by
 * `seal`) and MCP tool; the others stay NULL. `invalid_input` for a non-object document.
 */
export function toolRowColumns(
  source: ToolRowSource,
  seal: (auth: OpenApiAuth) => string,
): Partial<Omit<ToolRow, 'id' | 'persona_id' | 'position' | 'created_at'>> {
  switch (source.kind) {
    case 'built-in':
      return { built_in_id: source.builtInId };
    case 'openapi':
      if (typeof source.document !== 'object' || source.document === null) {
        throw new StorageError({
          code: 'invalid_input',
          message: 'An OpenAPI tool row needs a document object.',
        });
      }
      return {
        openapi_name: source.name,
        openapi_document: JSON.stringify(source.document),
        openapi_auth_secret: source.auth ? seal(source.auth) : null,
      };
    case 'mcp':
      return { mcp_server_id: source.serverId, mcp_tool_name: source.toolName };
    default:
      throw new StorageError({ code: 'invalid_input', message: 'Unknown tool row source kind.' });
  }
}

/** The source a tool row's columns describe; sealed OpenAPI auth opened by `openAuth`. */
export function toolRowSource(row: ToolRow, openAuth: (sealed: string) => OpenApiAuth): ToolRowSource {
  if (row.built_in_id !== null) return { kind: 'built-in', builtInId: row.built_in_id };
  if (row.mcp_server_id !== null && row.mcp_tool_name !== null) {
    return { kind: 'mcp', serverId: row.mcp_server_id, toolName: row.mcp_tool_name };
  }
  const document = JSON.parse(row.openapi_document ?? 'null') as unknown;
  const openapi = { kind: 'openapi', name: row.openapi_name ?? '', document } as const;
  return row.openapi_auth_secret === null ? openapi : { ...openapi, auth: openAuth(row.openapi_auth_secret) };
}
