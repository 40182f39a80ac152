import { dirname, join } from 'node:path';
import { resolveSecretKey } from '@toolbus/storage';
import type { CliConfig } from './cli-config.ts';

/**
 * The secret key egress run tokens are derived from: the same key the configured storage seals secrets with
 * (`TOOLBUS_SECRET_KEY`, else the key file beside the database, or in the home with PostgreSQL), so a server and
 * the egress proxy that read the same database also agree on tokens without a second secret.
 */
export function egressSecretKey(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
): Uint8Array {
  const secretKeyFile =
    config.storageUrl.value === undefined
      ? join(dirname(config.databaseFile), 'secret.key')
      : join(config.home, 'secret.key');
  return resolveSecretKey({ environment: env, secretKeyFile });
}
