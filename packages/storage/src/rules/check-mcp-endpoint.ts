import type { McpEndpoint } from '../mcp-server.ts';
import { StorageError } from '../storage-error.ts';

/** Refuses an MCP endpoint a backend must not store: a stdio server without a command, a URL that is not http(s). */
export function checkMcpEndpoint(endpoint: McpEndpoint): McpEndpoint {
  if (endpoint.transport === 'stdio') {
    if (endpoint.command === '' || !endpoint.args.every((argument) => typeof argument === 'string')) {
      throw new StorageError({
        code: 'invalid_input',
        message: 'A stdio MCP server needs a command and string args.',
      });
    }
    return endpoint;
  }
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch (cause) {
    throw new StorageError({
      code: 'invalid_input',
      message: 'The MCP server URL is not a valid URL.',
      cause,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StorageError({ code: 'invalid_input', message: 'The MCP server URL must use http or https.' });
  }
  return endpoint;
}
