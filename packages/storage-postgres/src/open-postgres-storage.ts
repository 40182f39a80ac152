import { createSecretBox, resolveSecretKey, type SecretKeyOptions, type Storage } from '@toolbus/storage';
import { openSqlStorage } from '@toolbus/storage/backend';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { createPostgresPacketStreams } from './postgres-packet-streams.ts';
import { openPostgresPool, type PostgresConnectionOptions } from './postgres-pool.ts';
import { describePostgresUrl } from './postgres-url.ts';

/** Options of {@link openPostgresStorage}. */
export interface OpenPostgresStorageOptions extends SecretKeyOptions, PostgresConnectionOptions {}

/**
 * Opens (creating the schema and migrating when needed) toolbus storage on PostgreSQL, for replicas sharing one
 * database. A key (or key file) must be given: every replica must use the same. Fails closed like the SQLite store,
 * and `unreachable` (naming host and port, never the password) when the server cannot be reached or refuses the login.
 */
export async function openPostgresStorage(options: OpenPostgresStorageOptions): Promise<Storage> {
  // A URL that is none fails before a key is looked for.
  describePostgresUrl(options.url);
  const secrets = createSecretBox(
    resolveSecretKey(
      options,
      'PostgreSQL storage needs a secret key that every replica shares: set TOOLBUS_SECRET_KEY (base64 of 32 bytes) or a key file.',
    ),
  );
  const pool = await openPostgresPool(options);
  return openSqlStorage({
    ...postgresMigrationTarget(pool),
    secrets,
    packetStreams: () => createPostgresPacketStreams(pool),
  });
}
