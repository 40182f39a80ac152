import type { SettingStore } from './storage.ts';

// The setting that holds one server's header template (names → `{placeholder}` templates; no secrets in it).
const templateKey = (serverId: string) => `mcp-header-template:${serverId}`;

/**
 * A server's header template as stored, or undefined. A value that is not a map of strings (edited by hand, written
 * by a future version) reads as an empty template: nothing is sent that an administrator did not write.
 */
export async function readMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
): Promise<Readonly<Record<string, string>> | undefined> {
  const value = await settings.get(templateKey(serverId));
  if (value === undefined || value === null) return undefined;
  const valid =
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string');
  return valid ? (value as Record<string, string>) : {};
}

/** Stores one server's header template (replacing it); an empty one removes it. */
export async function writeMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
  template: Readonly<Record<string, string>>,
): Promise<void> {
  if (Object.keys(template).length === 0) await settings.delete(templateKey(serverId));
  else await settings.set(templateKey(serverId), template);
}
