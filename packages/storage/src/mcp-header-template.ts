import { mcpServerSettingKey, readMcpServerSetting } from './mcp-server-setting.ts';
import type { SettingStore } from './storage.ts';

/**
 * A server's header template as stored (names → `{placeholder}` templates; no secrets in it), or undefined. A value
 * that is not a map of strings (edited by hand, written by a future version) reads as an empty template: nothing is
 * sent that an administrator did not write.
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
