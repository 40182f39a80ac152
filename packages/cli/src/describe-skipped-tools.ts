import { routineSkipReasons, type SkippedTool } from '@toolbus/assembly';
import { oneLine } from './one-line.ts';

/**
 * What the user must hear before the answer about tools that were left out: one line per MCP server that cannot
 * be used (and why), one per server whose tools wait for approval (not approved, changed since approval, or new
 * since its tool set was approved), and one per other failure. Names the fix.
 */
export function describeSkippedTools(
  skipped: readonly SkippedTool[],
  serverNames: ReadonlyMap<string, string>,
): string[] {
  const lines: string[] = [];
  const failedServers = new Set<string>();
  const waiting = new Map<string, { notApproved: number; changed: number; added: string[] }>();
  for (const item of skipped) {
    if (routineSkipReasons.has(item.reason)) continue;
    const server =
      item.serverId === undefined ? undefined : (serverNames.get(item.serverId) ?? item.serverId);
    if (
      item.reason === 'mcp-not-approved' ||
      item.reason === 'mcp-definition-changed' ||
      item.reason === 'mcp-tool-new'
    ) {
      const counts = waiting.get(server ?? '') ?? { notApproved: 0, changed: 0, added: [] };
      if (item.reason === 'mcp-not-approved') counts.notApproved += 1;
      else if (item.reason === 'mcp-definition-changed') counts.changed += 1;
      else counts.added.push(item.toolName ?? '?');
      waiting.set(server ?? '', counts);
      continue;
    }
    if (item.source === 'mcp' && item.serverId !== undefined) {
      if (failedServers.has(item.serverId)) continue;
      failedServers.add(item.serverId);
      const fix = item.reason === 'mcp-auth-required' ? ` — run \`toolbus mcp login ${server}\`` : '';
      lines.push(`${oneLine(item.message)}${fix} (its tools are not offered)`);
      continue;
    }
    lines.push(oneLine(item.message));
  }
  for (const [server, counts] of waiting) {
    const parts = [
      counts.notApproved > 0 ? `${counts.notApproved} not approved` : '',
      counts.changed > 0 ? `${counts.changed} changed since approval` : '',
      // New tools are named: the user has never seen them, unlike a changed one.
      counts.added.length > 0 ? `${counts.added.length} new, not approved: ${counts.added.join(', ')}` : '',
    ].filter(Boolean);
    lines.push(
      `Tools of MCP server "${server}" are withheld (${parts.join(', ')}) — review and run \`toolbus mcp approve ${server}\``,
    );
  }
  return lines;
}
