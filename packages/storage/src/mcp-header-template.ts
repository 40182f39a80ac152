import { mcpServerSettingKey, readMcpServerSetting } from './mcp-server-setting.ts';
import type { SettingStore } from './storage.ts';

/**
 * A server's header template as stored (names → `{placeholder}` templates; no secrets), or undefined; a value that is
 * not a map of strings reads as empty: nothing is sent that an administrator did not write.
 */
export async function readMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
): Promise<Readonly<Record<string, string>> | undefined> {
  const isTemplate = (record: object) => Object.values(record).every((value) => typeof value === 'string');
  return readMcpServerSetting(settings, ['mcp-header-template', serverId], isTemplate, {});
}

/** Stores one server's header template (replacing it); an empty one removes it. */
export async function writeMcpHeaderTemplate(
  settings: SettingStore,
  serverId: string,
  template: Readonly<Record<string, string>>,
): Promise<void> {
  const key = mcpServerSettingKey('mcp-header-template', serverId);
  if (Object.keys(template).length === 0) await settings.delete(key);
  else await settings.set(key, template);
}
