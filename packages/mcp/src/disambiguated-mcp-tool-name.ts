import { sanitizeToolName } from '@toolbus/spec';

/** The collision-safe name `mcp_{server}_{tool}`, sanitised. The assembly applies it when names collide. */
export function disambiguatedMcpToolName(options: {
  readonly serverName: string;
  readonly toolName: string;
}): string {
  return sanitizeToolName(`mcp_${options.serverName}_${options.toolName}`);
}
