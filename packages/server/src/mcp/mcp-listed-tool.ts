import type { McpTool } from '@toolbus/mcp';
import type { Tool } from '@toolbus/spec';

/** One entry of the endpoint's `tools/list`. */
export interface McpListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
}

/**
 * How the endpoint lists a persona's tool to an MCP client. A tool that itself comes from an MCP server keeps its
 * server's own input schema (`$schema`, `$defs`, `$ref`, `additionalProperties`): an MCP client takes JSON Schema
 * 2020-12 as it is, and the flattened schema built for model providers would lose what the server said. Other tools
 * list the schema they give models.
 */
export function mcpListedTool(tool: Tool): McpListedTool {
  const definition = tool.definition();
  const descriptor = (tool as Partial<McpTool>).descriptor;
  const schema = descriptor?.inputSchema ?? definition.parameters;
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: schema as McpListedTool['inputSchema'],
  };
}
