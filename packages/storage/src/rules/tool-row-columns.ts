import type { OpenApiAuth } from '@toolbus/spec';
import type { ToolRowSource } from '../persona.ts';
import { StorageError } from '../storage-error.ts';

/** A tool row's source as columns: exactly one of built-in id, OpenAPI document (JSON text), MCP server. */
export interface ToolRowColumns {
  readonly builtInId: string | null;
  readonly openApiName: string | null;
  readonly openApiDocument: string | null;
  readonly openApiAuthSecret: string | null;
  readonly mcpServerId: string | null;
  readonly mcpToolName: string | null;
}

/** The columns of a tool row's source; OpenAPI auth sealed by `seal`. `invalid_input` for a non-object document. */
export function toolRowColumns(source: ToolRowSource, seal: (auth: OpenApiAuth) => string): ToolRowColumns {
  const none = {
    builtInId: null,
    openApiName: null,
    openApiDocument: null,
    openApiAuthSecret: null,
    mcpServerId: null,
    mcpToolName: null,
  };
  switch (source.kind) {
    case 'built-in':
      return { ...none, builtInId: source.builtInId };
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
        openApiName: source.name,
        openApiDocument: document,
        openApiAuthSecret: source.auth ? seal(source.auth) : null,
      };
    }
    case 'mcp':
      return { ...none, mcpServerId: source.serverId, mcpToolName: source.toolName };
    default:
      throw new StorageError({ code: 'invalid_input', message: 'Unknown tool row source kind.' });
  }
}

/** The source a tool row's columns describe; sealed OpenAPI auth opened by `openAuth`. */
export function toolRowSource(
  columns: ToolRowColumns,
  openAuth: (sealed: string) => OpenApiAuth,
): ToolRowSource {
  if (columns.builtInId !== null) return { kind: 'built-in', builtInId: columns.builtInId };
  if (columns.mcpServerId !== null && columns.mcpToolName !== null) {
    return { kind: 'mcp', serverId: columns.mcpServerId, toolName: columns.mcpToolName };
  }
  const document = JSON.parse(columns.openApiDocument ?? 'null') as unknown;
  const name = columns.openApiName ?? '';
  return columns.openApiAuthSecret === null
    ? { kind: 'openapi', name, document }
    : { kind: 'openapi', name, document, auth: openAuth(columns.openApiAuthSecret) };
}
