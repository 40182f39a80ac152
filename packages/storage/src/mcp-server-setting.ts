import type { SettingStore } from './storage.ts';

/**
 * The settings that belong to one MCP server, each stored as `<name>:<server id>` (settings, so both databases keep
 * them without a migration). The MCP server store deletes every one with its server.
 */
export const mcpServerSettingNames = ['mcp-server-access', 'mcp-header-template'] as const;
type McpServerSettingName = (typeof mcpServerSettingNames)[number];

export const mcpServerSettingKey = (name: McpServerSettingName, serverId: string) => `${name}:${serverId}`;

/**
 * One server's setting, or undefined. A value that is no record or that `isValid` refuses (edited by hand, written by
 * a future version) reads as `whenInvalid`: the reader says what a doubt grants.
 */
export async function readMcpServerSetting<Value extends object>(
  settings: SettingStore,
  [name, serverId]: readonly [McpServerSettingName, string],
  isValid: (record: Readonly<Record<string, unknown>>) => boolean,
  whenInvalid: Value,
): Promise<Value | undefined> {
  const value = await settings.get(mcpServerSettingKey(name, serverId));
  if (value === undefined || value === null) return undefined;
  const valid =
    typeof value === 'object' && !Array.isArray(value) && isValid(value as Record<string, unknown>);
  return valid ? (value as Value) : whenInvalid;
}
