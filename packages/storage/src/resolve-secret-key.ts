import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { StorageError } from './storage-error.ts';

/** Where the storage secret key comes from, in priority order. */
export interface SecretKeyOptions {
  /** The key that encrypts secrets at rest: 32 bytes or their base64. Default: `TOOLBUS_SECRET_KEY`, then the key file. */
  readonly secretKey?: Uint8Array | string;
  /** A key file (mode 0600) read when no key is given; created on first use. */
  readonly secretKeyFile?: string;
  /** Where `TOOLBUS_SECRET_KEY` (base64 of 32 bytes) is read (default `process.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/**
 * The 32-byte key that encrypts secrets at rest: an explicit key, then `TOOLBUS_SECRET_KEY`, then a key file created
 * on first run with mode 0600 (refused if group or others may read it). With none, the key is ephemeral, or, where
 * it must be shared, refused with `whenMissing`.
 */
export function resolveSecretKey(options: SecretKeyOptions, whenMissing?: string): Uint8Array {
  if (options.secretKey !== undefined) return decodeKey(options.secretKey, 'the secretKey option');
  const fromEnvironment = (options.environment ?? process.env).TOOLBUS_SECRET_KEY;
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return decodeKey(fromEnvironment, 'TOOLBUS_SECRET_KEY');
  }
  if (options.secretKeyFile !== undefined) return readOrCreateKeyFile(options.secretKeyFile);
  if (whenMissing === undefined) return new Uint8Array(randomBytes(32));
  throw new StorageError({ code: 'invalid_secret_key', message: whenMissing });
}

function readOrCreateKeyFile(path: string): Uint8Array {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // `wx` fails when the file exists, so two processes starting together never overwrite each other's key.
    const descriptor = openSync(path, 'wx', 0o600);
    try {
      const key = randomBytes(32);
      writeSync(descriptor, `${key.toString('base64')}\n`);
      chmodSync(path, 0o600);
      return new Uint8Array(key);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = statSync(path).mode;
  if ((mode & 0o077) !== 0) {
    throw new StorageError({
      code: 'insecure_key_file',
      message: `The key file ${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 it.`,
    });
  }
  return decodeKey(readFileSync(path, 'utf8').trim(), `the key file ${path}`);
}

function decodeKey(value: Uint8Array | string, source: string): Uint8Array {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : value;
  const canonical = typeof value === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(value);
  if (bytes.byteLength !== 32 || (typeof value === 'string' && !canonical)) {
    throw new StorageError({
      code: 'invalid_secret_key',
      message: `The secret key from ${source} must be 32 bytes encoded as base64.`,
    });
  }
  return new Uint8Array(bytes);
}
