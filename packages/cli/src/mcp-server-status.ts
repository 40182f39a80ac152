import { mcpHeaderTemplateFor, toMcpServerConfig } from '@toolbus/assembly';
import { connectMcpServer, type McpOAuthOptions, type McpTool } from '@toolbus/mcp';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { McpServer, McpToolApproval, Storage, User } from '@toolbus/storage';
import { oneLine } from './one-line.ts';

/**
 * How one tool a server lists stands against its approval: `new, not approved` when the server's tool set was
 * approved before and this tool was not in it (it appeared since).
 */
export type McpToolState = 'approved' | 'not approved' | 'new, not approved' | 'changed since approval';

/** What a server lists now, each tool with its approval state; or why it cannot be reached. */
export type McpServerStatus =
  | {
      readonly ok: true;
      readonly tools: readonly { readonly tool: McpTool; readonly state: McpToolState }[];
      /** Approved tools the server no longer lists. */
      readonly gone: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Connects to a stored server, lists its tools and compares each with its approval (a changed description or
 * schema needs approval again). A server that cannot start or answer is a reason, not a throw.
 */
export async function mcpServerStatus(input: {
  readonly server: McpServer;
  readonly storage: Storage;
  readonly fetch: FetchFunction;
  readonly oauth?: McpOAuthOptions;
  /** Whose values fill the server's per-user header template (the CLI's local user). */
  readonly user?: User;
}): Promise<McpServerStatus> {
  let tools: readonly McpTool[];
  try {
    const template = await mcpHeaderTemplateFor(input.storage, input.server.id, input.user);
    if (!template.ok) return { ok: false, reason: template.message };
    const config = toMcpServerConfig(
      input.server,
      omitUndefined({ headerTemplate: template.headerTemplate }),
    );
    const connection = await connectMcpServer(config, {
      fetch: input.fetch,
      requestTimeoutMs: 20_000,
      ...omitUndefined({ oauth: input.oauth }),
    });
    try {
      tools = await connection.tools();
    } finally {
      await connection.close().catch(() => undefined);
    }
  } catch (error) {
    return { ok: false, reason: oneLine(error instanceof Error ? error.message : String(error)) };
  }
  const approvals = new Map<string, McpToolApproval>(
    (await input.storage.mcpServers.listApprovals(input.server.id)).map((approval) => [
      approval.toolName,
      approval,
    ]),
  );
  const listed = new Set(tools.map((tool) => tool.mcpToolName));
  return {
    ok: true,
    tools: tools.map((tool) => {
      const approval = approvals.get(tool.mcpToolName);
      const state: McpToolState =
        approval === undefined
          ? approvals.size > 0
            ? 'new, not approved'
            : 'not approved'
          : approval.definitionHash === tool.definitionHash
            ? 'approved'
            : 'changed since approval';
      return { tool, state };
    }),
    gone: [...approvals.keys()].filter((name) => !listed.has(name)),
  };
}

/**
 * Approves a server's tool set as it is listed now, for one persona: every listed tool gets an approval of its
 * current definition and a persona row; tools the server no longer lists lose theirs. One decision per tool set,
 * so a server that later changes a tool (or adds one) asks again.
 */
export async function approveMcpToolSet(input: {
  readonly server: McpServer;
  readonly tools: readonly McpTool[];
  readonly personaId: string;
  readonly storage: Storage;
  readonly approvedBy: string;
}): Promise<void> {
  const { storage, server } = input;
  const listed = new Set(input.tools.map((tool) => tool.mcpToolName));
  for (const tool of input.tools) {
    await storage.mcpServers.approveTool({
      serverId: server.id,
      toolName: tool.mcpToolName,
      definitionHash: tool.definitionHash,
      approvedBy: input.approvedBy,
    });
  }
  for (const approval of await storage.mcpServers.listApprovals(server.id)) {
    if (!listed.has(approval.toolName)) {
      await storage.mcpServers.revokeApproval({ serverId: server.id, toolName: approval.toolName });
    }
  }
  await syncMcpPersonaRows(input);
}

/**
 * Gives a persona one row per tool the server lists now (and drops rows of tools it no longer lists). Rows of
 * unapproved tools are withheld by assembly with a reason, which is how a chat can tell the user to approve them.
 */
export async function syncMcpPersonaRows(input: {
  readonly server: McpServer;
  readonly tools: readonly McpTool[];
  readonly personaId: string;
  readonly storage: Storage;
}): Promise<void> {
  const { storage, server } = input;
  const listed = new Set(input.tools.map((tool) => tool.mcpToolName));
  const rows = (await storage.personas.listToolRows(input.personaId)).filter(
    (row) => row.source.kind === 'mcp' && row.source.serverId === server.id,
  );
  const present = new Set<string>();
  for (const row of rows) {
    const toolName = row.source.kind === 'mcp' ? row.source.toolName : '';
    if (listed.has(toolName)) present.add(toolName);
    else await storage.personas.removeToolRow(row.id);
  }
  for (const tool of input.tools) {
    if (!present.has(tool.mcpToolName)) {
      await storage.personas.addToolRow(input.personaId, {
        kind: 'mcp',
        serverId: server.id,
        toolName: tool.mcpToolName,
      });
    }
  }
}
