import { StorageError } from '@toolbus/storage';
import type { PostgresTarget } from './postgres-url.ts';

/** The `unreachable` error for a failed connection: names host, port and database and the reason's code only. */
export function unreachable(target: PostgresTarget, cause: unknown): StorageError {
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
