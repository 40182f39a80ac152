import type { Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { adaptTool } from './adapt-tool.ts';
import { resolveToolNames } from './resolve-tool-names.ts';
import type { BuiltEntry } from './row-outcome.ts';

/**
 * Gives every built tool a provider-valid, unique name (colliding MCP tools take their `mcp_{server}_{tool}`
 * name) and groups them by row, in row order.
 */
export function nameAssembledTools(entries: readonly BuiltEntry[]): {
  readonly tools: Tool[];
  readonly toolsByRowId: Map<string, Tool[]>;
} {
  const names = resolveToolNames(
    entries.map((entry) => ({
      name: entry.tool.name,
      kind: entry.kind,
      ...omitUndefined({ disambiguatedName: entry.mcpTool?.disambiguatedName }),
    })),
  );
  const toolsByRowId = new Map<string, Tool[]>();
  const tools = entries.map((entry, index) => {
    const name = names[index] ?? entry.tool.name;
    const tool =
      name === entry.tool.name
        ? entry.tool
        : entry.mcpTool !== undefined
          ? entry.mcpTool.withName(name)
          : adaptTool(entry.tool, { name });
    const list = toolsByRowId.get(entry.rowId) ?? [];
    list.push(tool);
    toolsByRowId.set(entry.rowId, list);
    return tool;
  });
  return { tools, toolsByRowId };
}
