import type { SettingStore } from './storage.ts';

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
