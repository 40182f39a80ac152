import type { McpTool } from '@toolbus/mcp';
import type { Tool } from '@toolbus/spec';
import type { SkippedTool, SkipReason } from './skipped-tool.ts';

/** One tool an assembly row produced, before names are made unique. */
export interface BuiltEntry {
  readonly rowId: string;
  readonly kind: 'built-in' | 'openapi' | 'mcp';
  readonly tool: Tool;
  readonly mcpTool?: McpTool;
}

/** What one persona row (or injection) became: its tools, or why it has none. */
export interface RowOutcome {
  readonly entries: readonly BuiltEntry[];
  readonly skipped: readonly SkippedTool[];
}

/** A row that produced no tool, for one reason: the one shape every builder reports a skip in. */
export function skippedRow(
  base: Pick<SkippedTool, 'rowId' | 'source'> & Partial<Pick<SkippedTool, 'toolName' | 'serverId'>>,
  reason: SkipReason,
  message: string,
): RowOutcome {
  return { entries: [], skipped: [{ ...base, reason, message }] };
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
