// An MCP server stored for a chat assembly to read, with some of its tools offered in a persona (what the admin
// routes and the persona editor record).
import type { NewMcpServer, Storage } from '@toolbus/storage';

/** Stores a streamable-HTTP MCP server at `url` (no auth unless said), offers `toolNames` in the persona; its id. */
export async function offerMcpTools(
  storage: Storage,
  personaId: string,
  server: Omit<NewMcpServer, 'endpoint' | 'authType'> & {
    readonly url: string;
    readonly authType?: NewMcpServer['authType'];
  },
  toolNames: readonly string[],
): Promise<string> {
  const { url, authType = 'none', ...rest } = server;
  const stored = await storage.mcpServers.create({
    ...rest,
    endpoint: { transport: 'streamable-http', url },
    authType,
  });
  for (const toolName of toolNames) {
    await storage.personas.addToolRow(personaId, { kind: 'mcp', serverId: stored.id, toolName });
  }
  return stored.id;
}
