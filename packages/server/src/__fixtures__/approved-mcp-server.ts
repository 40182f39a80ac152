// An MCP server registered in storage with every tool it lists approved by an admin and offered by a persona:
// the set-up of a turn that calls a real MCP server's tools (what the review route and the persona editor record).
import { connectMcpServer, toolDefinitionHash } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
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
    /** Headers the server wants on every request (an `Authorization`): stored as the server's `headers` auth. */
    readonly headers?: Readonly<Record<string, string>> | undefined;
  },
): Promise<{ readonly serverId: string }> {
  const { name, url, headers } = options;
  const row = await storage.mcpServers.create({
    name,
    endpoint: { transport: 'streamable-http', url },
    authType: headers ? 'headers' : 'none',
    ...omitUndefined({ headers }),
  });
  const connection = await connectMcpServer(
    {
      id: row.id,
      name,
      transport: { type: 'streamable-http', url },
      ...omitUndefined({ auth: headers && { type: 'headers' as const, headers } }),
    },
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
