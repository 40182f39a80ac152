import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { StorageError } from './storage-error.ts';

const formatPrefix = 'v1.';
const ivLength = 12;
const tagLength = 16;

/**
 * Seals and opens secrets with AES-256-GCM. `context` is bound as additional authenticated data (table, column
 * and row id), so a sealed value copied into another row or column fails to open instead of being accepted.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws `StorageError` `secret_undecryptable` when the key is wrong or the value was altered: never garbage. */
  open(sealed: string, context: string): string;
}

/** Builds a {@link SecretBox} over a 32-byte key. The key stays inside the closure and is never logged. */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.byteLength !== 32) {
    throw new StorageError({ code: 'invalid_secret_key', message: 'The secret key must be 32 bytes.' });
  }
  const keyCopy = Buffer.from(key);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(ivLength);
      const cipher = createCipheriv('aes-256-gcm', keyCopy, iv, { authTagLength: tagLength });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return formatPrefix + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(sealed, context) {
      if (!sealed.startsWith(formatPrefix)) {
        throw undecryptable(context);
      }
      const raw = Buffer.from(sealed.slice(formatPrefix.length), 'base64url');
      if (raw.byteLength < ivLength + tagLength) throw undecryptable(context);
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyCopy, raw.subarray(0, ivLength), {
          authTagLength: tagLength,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(raw.subarray(ivLength, ivLength + tagLength));
        return Buffer.concat([
          decipher.update(raw.subarray(ivLength + tagLength)),
          decipher.final(),
        ]).toString('utf8');
      } catch (cause) {
        throw undecryptable(context, cause);
      }
    },
  };
}

function undecryptable(context: string, cause?: unknown): StorageError {
  return new StorageError({
    code: 'secret_undecryptable',
    message: `The stored secret ${context} cannot be decrypted with the configured key (wrong key or altered value).`,
    cause,
  });
}
