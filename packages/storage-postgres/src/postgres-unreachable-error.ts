import { StorageError } from '@toolbus/storage';

/** Where a PostgreSQL URL points, for messages: host, port and database, never the user's password. */
export interface PostgresTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
}

/** Reads host, port and database of a `postgres://` / `postgresql://` URL; `invalid_input` for anything else. */
export function describePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    // The URL may hold a password: the message never repeats it.
    throw new StorageError({
      code: 'invalid_input',
      message: 'The PostgreSQL URL is not a valid URL.',
      cause,
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StorageError({
      code: 'invalid_input',
      message: `A PostgreSQL URL starts with postgres:// or postgresql://, not ${parsed.protocol}//.`,
    });
  }
  return {
    host: parsed.hostname === '' ? 'localhost' : parsed.hostname,
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    database: decodeURIComponent(parsed.pathname.slice(1)) || '(default)',
  };
}

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
