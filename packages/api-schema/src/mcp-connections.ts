import { z } from 'zod';

/** An MCP server the caller may connect to, and whether they are. */
export const mcpConnectionSchema = z.object({
  serverId: z.string(),
  name: z.string(),
  authType: z.enum(['none', 'api-key', 'headers', 'oauth']),
  connected: z.boolean(),
});

/** The MCP servers the caller may connect to. */
export const mcpConnectionListSchema = z.object({ servers: z.array(mcpConnectionSchema) });

/** Starting to connect to an OAuth MCP server. */
export const connectMcpServerBody = z.object({
  returnTo: z
    .string()
    .max(2000)
    .optional()
    .describe('A path on this server the callback sends the browser to (default /; anything else becomes /)'),
});

/** Connected, or where to authorize. */
export const mcpConnectStartSchema = z.object({
  status: z.enum(['connected', 'authorization_required']),
  authorizationUrl: z.string().optional(),
});
