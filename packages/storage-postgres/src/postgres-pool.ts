import { StorageError } from '@toolbus/storage';
import pg from 'pg';
import { describePostgresUrl, type PostgresTarget } from './postgres-url.ts';

/** Where and how a process connects to PostgreSQL: storage and the search index open their pools alike. */
export interface PostgresConnectionOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). Never logged; errors name host and port. */
  readonly url: string;
  /** Connections this process keeps open at most (default 10). */
  readonly maxConnections?: number;
  /** How long connecting may take before the open fails as `unreachable` (default 10 s). */
  readonly connectTimeoutMs?: number;
}

/**
 * A `pg` pool on the database at `url`, returned once a first query has run; when the server cannot be reached or
 * refuses the login, the pool is ended and the error is `unreachable` (host, port and database, never the password).
 */
export async function openPostgresPool(options: PostgresConnectionOptions): Promise<pg.Pool> {
  const target = describePostgresUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
  });
  // A connection the server closes (restart, failover) is dropped, idle or in a transaction (whose query fails):
  // neither error event may crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => {});
    throw unreachable(target, cause);
  }
  return pool;
}

// Rows read as on SQLite: JSON columns as their text, timestamps as ISO strings, bytes as a plain Uint8Array, 64-bit
// integers as numbers (no count or id of toolbus nears 2^53). Each parser is made once, not per query.
const defaultTypeParser = pg.types.getTypeParser;
const { JSON: json, JSONB, TIMESTAMPTZ, BYTEA, INT8 } = pg.types.builtins;
const parseTimestamp = defaultTypeParser(TIMESTAMPTZ) as (text: string) => Date;
const parseBytes = defaultTypeParser(BYTEA) as (text: string) => Buffer;
const asText = (text: string) => text;
const parsers = new Map<number, (text: string) => unknown>([
  [json, asText],
  [JSONB, asText],
  [TIMESTAMPTZ, (text) => parseTimestamp(text).toISOString()],
  [
    BYTEA,
    (text) => {
      const bytes = parseBytes(text);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
  ],
  [INT8, Number],
]);
function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  return parsers.get(oid) ?? (format === undefined ? defaultTypeParser(oid) : defaultTypeParser(oid, format));
}

/** The `unreachable` error for a failed connection: names host, port and database and the reason's code only. */
function unreachable(target: PostgresTarget, cause: unknown): StorageError {
  const code = (cause as { code?: unknown }).code;
  const reason = typeof code === 'string' ? (reasons[code] ?? `error ${code}`) : 'the connection failed';
  return new StorageError({
    code: 'unreachable',
    message: `Cannot reach PostgreSQL at ${target.host}:${target.port} (database ${target.database}): ${reason}.`,
    cause,
  });
}

const reasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is the server running and listening there?)',
  ENOTFOUND: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  '57P03': 'the server is starting up or shutting down',
};
