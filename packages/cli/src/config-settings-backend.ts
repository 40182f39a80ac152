import { type LibrarySettingKey, type LibrarySettingsBackend, ServerError } from '@toolbus/server';
import { ToolbusError } from '@toolbus/spec';
import { loadCliConfig, setConfigValue, type ToolbusConfigFile } from './cli-config.ts';

/** Each admin setting, the config-file key it is, and how its value reads and is written there. */
const settingKeys: Readonly<
  Record<
    LibrarySettingKey,
    {
      readonly key: string;
      read(file: ToolbusConfigFile): unknown;
      write(value: unknown): string | undefined;
    }
  >
> = {
  model: { key: 'model', read: (file) => file.model, write: (value) => stringOf(value) },
  webSearchProvider: {
    key: 'webSearch.provider',
    read: (file) => file.webSearch?.provider,
    write: (value) => stringOf(value),
  },
  imageProvider: {
    key: 'imageGeneration.baseUrl',
    read: (file) => file.imageGeneration?.baseUrl,
    write: (value) => stringOf(value),
  },
  memoryDefault: {
    key: 'memory',
    read: (file) => (file.memory === undefined ? undefined : file.memory === 'on'),
    write: (value) => (typeof value === 'boolean' ? (value ? 'on' : 'off') : stringOf(value)),
  },
};

/**
 * The admin settings of `toolbus serve` over the CLI's config file: `PATCH /v1/admin/settings` writes through
 * `setConfigValue`, the very function `toolbus config set` uses (same validation, same file), and a value it
 * refuses is a 400 naming the field.
 */
export function createConfigSettingsBackend(
  env: Readonly<Record<string, string | undefined>>,
): LibrarySettingsBackend {
  return {
    async read() {
      const { file } = loadCliConfig({ env, tolerant: true });
      const settings: Partial<Record<LibrarySettingKey, unknown>> = {};
      for (const [name, setting] of Object.entries(settingKeys) as [
        LibrarySettingKey,
        (typeof settingKeys)[LibrarySettingKey],
      ][]) {
        const value = setting.read(file);
        if (value !== undefined) settings[name] = value;
      }
      return settings;
    },
    async write(changes) {
      for (const [name, value] of Object.entries(changes) as [LibrarySettingKey, unknown][]) {
        if (value === undefined) continue;
        const setting = settingKeys[name];
        // Re-read before each write: setConfigValue writes the file it was given plus one change.
        const config = loadCliConfig({ env, tolerant: true });
        try {
          await setConfigValue(config, setting.key, value === null ? undefined : setting.write(value));
        } catch (error) {
          if (!ToolbusError.isInstance(error)) throw error;
          throw new ServerError({
            code: 'invalid_request',
            field: `body.${name}`,
            message: `body.${name}: ${error.message}`,
          });
        }
      }
    },
  };
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
