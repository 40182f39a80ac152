// MCP tool definitions as a server lists them, shared by the tests that offer them through a loopback MCP server
// (`echoLoopbackTool` answers each call with its name and arguments).
import type { Tool as McpWireTool } from '@modelcontextprotocol/sdk/types.js';

/** A plain tool with one string argument. */
export const echoWireTool: McpWireTool = {
  name: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

/** A tool whose input schema no provider accepts: a `$ref` that refers to itself. */
export const recursiveWireTool: McpWireTool = {
  name: 'tree',
  description: 'Takes a tree.',
  inputSchema: {
    type: 'object',
    $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
    properties: { root: { $ref: '#/$defs/node' } },
  } as McpWireTool['inputSchema'],
};
