import { omitUndefined } from '@toolbus/spec';
import type { PersonaToolRow, SearchUsage } from '@toolbus/storage';
import type { SkippedTool } from './skipped-tool.ts';

/** What decides which rows of a persona take part in an assembly. */
export interface RowFilter {
  readonly memoryToolId: string;
  readonly searchToolId: string;
  readonly memoryEnabled: boolean;
  readonly searchUsage: SearchUsage;
  /** Only these row ids or built-in ids; undefined: all. The memory tool bypasses it. */
  readonly allowed: ReadonlySet<string> | undefined;
}

/**
 * Splits a persona's rows into the ones to build and the ones left out by request or settings: the memory tool
 * while the user has it off, rows outside the allowed list, search when disabled, a built-in listed twice.
 */
export function filterToolRows(
  rows: readonly PersonaToolRow[],
  filter: RowFilter,
): { readonly kept: PersonaToolRow[]; readonly skipped: SkippedTool[] } {
  const kept: PersonaToolRow[] = [];
  const skipped: SkippedTool[] = [];
  const seenBuiltIns = new Set<string>();
  for (const row of rows) {
    const builtInId = row.source.kind === 'built-in' ? row.source.builtInId : undefined;
    const skip = (reason: SkippedTool['reason'], message: string) =>
      skipped.push({
        rowId: row.id,
        source: row.source.kind,
        reason,
        message,
        ...omitUndefined({ toolName: builtInId }),
      });
    const isMemory = builtInId === filter.memoryToolId;
    if (isMemory && !filter.memoryEnabled)
      skip('memory-disabled', 'The user has the memory tool turned off.');
    else if (
      !isMemory &&
      filter.allowed !== undefined &&
      !filter.allowed.has(row.id) &&
      !(builtInId && filter.allowed.has(builtInId))
    )
      skip('not-allowed', 'Not in this request’s allowed tools.');
    else if (builtInId === filter.searchToolId && filter.searchUsage === 'disabled')
      skip('search-disabled', 'Search usage is disabled for this request.');
    else if (builtInId !== undefined && seenBuiltIns.has(builtInId))
      skip('duplicate-built-in', `The built-in ${builtInId} appears twice; the first row keeps it.`);
    else {
      if (builtInId !== undefined) seenBuiltIns.add(builtInId);
      kept.push(row);
    }
  }
  return { kept, skipped };
}
