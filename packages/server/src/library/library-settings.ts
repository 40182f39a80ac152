import type { Storage } from '@toolbus/storage';

/** Settings an admin can change. */
export const LIBRARY_SETTING_KEYS = ['model', 'webSearchProvider', 'imageProvider', 'memoryDefault'] as const;

/** One of {@link LIBRARY_SETTING_KEYS}. */
export type LibrarySettingKey = (typeof LIBRARY_SETTING_KEYS)[number];

/** Settings as read and written: a value, or `null` to remove one. */
export type LibrarySettings = Partial<Record<LibrarySettingKey, unknown>>;

/**
 * Where the deployment's settings live. The server keeps them in storage by default; `toolbus serve` passes the
 * CLI's config file instead, so `PATCH /v1/admin/settings` and `toolbus config set` are one operation on one file.
 * A value the backend refuses throws a `ServerError` naming `body.<key>`.
 */
export interface LibrarySettingsBackend {
  read(): Promise<LibrarySettings>;
  /** Applies the given settings in order; `null` removes one. */
  write(changes: LibrarySettings): Promise<void>;
}

/** Settings kept in storage under their own keys. */
export function storageSettingsBackend(storage: Storage): LibrarySettingsBackend {
  return {
    async read() {
      const settings: LibrarySettings = {};
      for (const key of LIBRARY_SETTING_KEYS) {
        const value = await storage.settings.get(key);
        if (value !== undefined) settings[key] = value;
      }
      return settings;
    },
    async write(changes) {
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) await storage.settings.delete(key);
        else if (value !== undefined) await storage.settings.set(key, value);
      }
    },
  };
}
