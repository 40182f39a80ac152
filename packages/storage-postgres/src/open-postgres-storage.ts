import { omitUndefined } from '@toolbus/spec';
import {
  createSecretBox,
  type Migration,
  resolveSecretKey,
  type Storage,
  StorageError,
} from '@toolbus/storage';
import { openSqlStorage } from '@toolbus/storage/backend';
import pg from 'pg';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { createPostgresPacketStreams } from './postgres-packet-streams.ts';
import { describePostgresUrl, unreachable } from './postgres-unreachable-error.ts';

/** Options of {@link openPostgresStorage}. */
export interface OpenPostgresStorageOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). Never logged; errors name host and port. */
  readonly url: string;
  /**
   * The key that encrypts secrets at rest: 32 bytes or their base64. Default: `TOOLBUS_SECRET_KEY`, then
   * `secretKeyFile`. Every replica must use the same key, so there is no generated default.
   */
  readonly secretKey?: Uint8Array | string;
  /** A key file (mode 0600) read when no key is given; created on first use. */
  readonly secretKeyFile?: string;
  /** Where `TOOLBUS_SECRET_KEY` is read (default `process.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The schema steps (default: toolbus's own). */
  readonly migrations?: readonly Migration[];
  /** Connections this process keeps open at most (default 10). */
  readonly maxConnections?: number;
  /** How long connecting may take before the open fails as `unreachable` (default 10 s). */
  readonly connectTimeoutMs?: number;
}

/**
 * Opens (creating the schema and migrating when needed) toolbus storage on PostgreSQL, for deployments with
 * several server replicas sharing one database. Fails closed like the SQLite store: `schema_too_new`,
 * `secret_key_mismatch`; and `unreachable` (naming host and port, never the password) when the server cannot be
 * reached or refuses the login.
 */
export async function openPostgresStorage(options: OpenPostgresStorageOptions): Promise<Storage> {
  const target = describePostgresUrl(options.url);
  const environment = options.environment ?? process.env;
  if (
    options.secretKey === undefined &&
    options.secretKeyFile === undefined &&
    !environment.TOOLBUS_SECRET_KEY
  ) {
    throw new StorageError({
      code: 'invalid_secret_key',
      message:
        'PostgreSQL storage needs a secret key that every replica shares: set TOOLBUS_SECRET_KEY (base64 of 32 bytes) or a key file.',
    });
  }
  const secrets = createSecretBox(
    resolveSecretKey({
      ...omitUndefined({ secretKey: options.secretKey, keyFilePath: options.secretKeyFile }),
      environment,
    }),
  );
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
  });
  // An idle connection the server closes (restart, failover) is dropped by the pool and reopened on next use; the
  // listener only keeps that event from crashing the process.
  pool.on('error', () => {});
  // The query builder checks a connection out for a whole transaction; one the server closes meanwhile fails its
  // query (and is not put back in the pool), and its error event must not crash the process either.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => {});
    throw unreachable(target, cause);
  }
  const builder = postgresMigrationTarget(pool);
  return openSqlStorage({
    ...builder,
    secrets,
    ...omitUndefined({ migrations: options.migrations }),
    packetStreams: (context) => createPostgresPacketStreams(context.db, pool),
    // Ends the pool.
    close: () => builder.db.destroy(),
  });
}

// What the stores read is alike on both databases: JSON columns as their text, timestamps as ISO strings, bytes
// as a plain Uint8Array, 64-bit integers as numbers (no count or id of toolbus nears 2^53). pg asks for a column's
// parser once per column of every result: each is one function made once, not a closure per query.
const defaultTypeParser = pg.types.getTypeParser;
const parseTimestamp = defaultTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
const parseBytes = defaultTypeParser(pg.types.builtins.BYTEA) as (text: string) => Buffer;
const asText = (text: string) => text;
const timestampText = (text: string) => parseTimestamp(text).toISOString();
const bytesArray = (text: string) => {
  const bytes = parseBytes(text);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};
const int8Number = (text: string) => Number(text);
function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  switch (oid) {
    case pg.types.builtins.JSON:
    case pg.types.builtins.JSONB:
      return asText;
    case pg.types.builtins.TIMESTAMPTZ:
      return timestampText;
    case pg.types.builtins.BYTEA:
      return bytesArray;
    case pg.types.builtins.INT8:
      return int8Number;
    default:
      return format === undefined ? defaultTypeParser(oid) : defaultTypeParser(oid, format);
  }
}
