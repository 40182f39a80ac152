import type { SettingStore } from './storage.ts';

/**
 * One user's values for an MCP server's header template (`{api_key}` → the user's key): secrets, stored sealed
 * per server and user, never logged, never shown back. Deleted with the server or the user.
 */
export interface McpUserCredentialStore {
  /** Stores (replacing) exactly that user's values for that server. */
  set(options: {
    readonly serverId: string;
    readonly userId: string;
    readonly values: Readonly<Record<string, string>>;
  }): Promise<void>;
  /** That user's values; never another user's. */
  get(options: {
    readonly serverId: string;
    readonly userId: string;
  }): Promise<Readonly<Record<string, string>> | undefined>;
  /** Forgets that user's values; false when there were none. */
  delete(options: { readonly serverId: string; readonly userId: string }): Promise<boolean>;
}

/** The setting that holds one server's header template (names → `{placeholder}` templates; no secrets in it). */
export function mcpHeaderTemplateKey(serverId: string): string {
  return `mcp-header-template:${serverId}`;
}

/**
 * A server's header template as stored, or undefined. A value that is not a map of strings (edited by hand, written
 * by a future version) reads as an empty template: nothing is sent that an administrator did not write.
 */
export async function readMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
): Promise<Readonly<Record<string, string>> | undefined> {
  const value = await settings.get(mcpHeaderTemplateKey(serverId));
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return {};
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, template]) => typeof template === 'string')) return {};
  return Object.fromEntries(entries) as Record<string, string>;
}

/** Stores one server's header template (replacing it); an empty one removes it. */
export async function writeMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
  template: Readonly<Record<string, string>>,
): Promise<void> {
  if (Object.keys(template).length === 0) await settings.delete(mcpHeaderTemplateKey(serverId));
  else await settings.set(mcpHeaderTemplateKey(serverId), template);
}
