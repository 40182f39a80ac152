// An MCP server registered in storage with every tool it lists approved by an admin and offered by a persona:
// the set-up of a turn that calls a real MCP server's tools (what the review route and the persona editor record).
import { connectMcpServer, toolDefinitionHash } from '@toolbus/mcp';
import type { Storage } from '@toolbus/storage';

/** Registers the streamable-HTTP server at `url` as `name`, approves its tools, offers them in the persona. */
export async function seedApprovedMcpServer(
  storage: Storage,
  options: {
    readonly name: string;
    readonly url: string;
    readonly personaId: string;
    /** How the listing is fetched (a guarded fetch that allows loopback). */
    readonly fetch: typeof globalThis.fetch;
  },
): Promise<{ readonly serverId: string }> {
  const { name, url } = options;
  const row = await storage.mcpServers.create({
    name,
    endpoint: { transport: 'streamable-http', url },
    authType: 'none',
  });
  const connection = await connectMcpServer(
    { id: row.id, name, transport: { type: 'streamable-http', url } },
    { fetch: options.fetch },
  );
  try {
    for (const descriptor of await connection.listTools()) {
      await storage.mcpServers.approveTool({
        serverId: row.id,
        toolName: descriptor.name,
        definitionHash: await toolDefinitionHash(descriptor),
        approvedBy: 'admin',
      });
      await storage.personas.addToolRow(options.personaId, {
        kind: 'mcp',
        serverId: row.id,
        toolName: descriptor.name,
      });
    }
  } finally {
    await connection.close();
  }
  return { serverId: row.id };
}
