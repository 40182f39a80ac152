import type { SecretBox } from '../secret-box.ts';
import { StorageError } from '../storage-error.ts';

const keyCheckContext = 'storage_meta.secret_key_check';
const keyCheckPlaintext = 'toolbus secret key check';

/** The marker the first open of a database stores (`storage_meta.secret_key_check`), sealed with its key. */
export function sealSecretKeyCheck(secrets: SecretBox): string {
  return secrets.seal(keyCheckPlaintext, keyCheckContext);
}

/**
 * Fails with `secret_key_mismatch` unless `sealed` (the stored marker) opens with this key: a database encrypted
 * with another key is refused before anything is read or written.
 */
export function verifySecretKeyCheck(secrets: SecretBox, sealed: string): void {
  try {
    if (secrets.open(sealed, keyCheckContext) === keyCheckPlaintext) return;
  } catch (cause) {
    throw mismatch(cause);
  }
  throw mismatch();
}

function mismatch(cause?: unknown): StorageError {
  return new StorageError({
    code: 'secret_key_mismatch',
    message: 'The database was encrypted with a different secret key than the one configured.',
    cause,
  });
}
