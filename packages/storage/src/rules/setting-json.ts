import { StorageError } from '../storage-error.ts';

/** A setting's value as JSON text; `invalid_input` when the value has no JSON form (undefined, a function). */
export function settingJson(key: string, value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new StorageError({ code: 'invalid_input', message: `The setting ${key} needs a JSON value.` });
  }
  return json;
}
