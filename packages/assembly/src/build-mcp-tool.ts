import type { PersonaToolRow } from '@toolbus/storage';
import type { McpServerTools } from './load-mcp-server-tools.ts';
import { type RowOutcome, skippedRow } from './row-outcome.ts';

/**
 * The tool of one MCP row from its server's listing: withheld when the server failed, does not list it, nobody
 * approved it (unless approval is off), or its definition drifted from what was approved.
 */
export function buildMcpTool(input: {
  readonly row: PersonaToolRow;
  readonly server: McpServerTools;
  readonly requireApproval: boolean;
}): RowOutcome {
  const { row, server } = input;
  if (row.source.kind !== 'mcp') throw new TypeError('buildMcpTool needs an MCP row');
  const { toolName, serverId } = row.source;
  const base = { rowId: row.id, source: 'mcp' as const, toolName, serverId };
  if (!server.ok) return skippedRow(base, server.reason, server.message);
  const tool = server.tools.find((candidate) => candidate.mcpToolName === toolName);
  const label = `MCP tool "${toolName}" of server "${server.serverName}"`;
  if (tool === undefined)
    return skippedRow(base, 'mcp-tool-missing', `The server does not list the ${label}.`);
  const approval = server.approvals.get(toolName);
  if (approval === undefined && input.requireApproval) {
    return skippedRow(base, 'mcp-not-approved', `The ${label} has not been approved by an admin.`);
  }
  if (tool.inputSchemaProblem !== undefined) {
    return skippedRow(
      base,
      'mcp-schema-unsupported',
      `The ${label} is set aside: ${tool.inputSchemaProblem}.`,
    );
  }
  if (approval !== undefined && approval.definitionHash !== tool.definitionHash) {
    return skippedRow(
      base,
      'mcp-definition-changed',
      `The ${label} changed its description or schema since ${approval.approvedBy} approved it; it needs re-approval.`,
    );
  }
  return { entries: [{ rowId: row.id, kind: 'mcp', tool, mcpTool: tool }], skipped: [] };
}
