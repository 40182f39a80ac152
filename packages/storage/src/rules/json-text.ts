import { StorageError } from '../storage-error.ts';

/** `value` as JSON text; `invalid_input` naming `what` when it has no JSON form (undefined, a function). */
export function jsonText(value: unknown, what: string): string {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new StorageError({ code: 'invalid_input', message: `${what} needs a JSON value.` });
  }
  return json;
}
