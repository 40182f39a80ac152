import type { McpEndpoint } from '../mcp-server.ts';
import { StorageError } from '../storage-error.ts';

/** Refuses an MCP endpoint a backend must not store: a stdio server without a command, a URL that is not http(s). */
export function checkMcpEndpoint(endpoint: McpEndpoint): McpEndpoint {
  const refuse = (message: string) => {
    throw new StorageError({ code: 'invalid_input', message });
  };
  if (endpoint.transport === 'stdio') {
    if (endpoint.command === '' || !endpoint.args.every((argument) => typeof argument === 'string')) {
      refuse('A stdio MCP server needs a command and string args.');
    }
    return endpoint;
  }
  const protocol = URL.parse(endpoint.url)?.protocol;
  if (protocol === undefined) refuse('The MCP server URL is not a valid URL.');
  if (protocol !== 'http:' && protocol !== 'https:') refuse('The MCP server URL must use http or https.');
  return endpoint;
}
