import { StorageError } from '@toolbus/storage';

// Its own module (and the package's `./postgres-url` entry) so the CLI can read a configured URL without loading
// the PostgreSQL driver: every command checks the config file, few open the database.

/** Where a PostgreSQL URL points, for messages: host, port and database, never the user's password. */
export interface PostgresTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** The URL holds a password (never the password itself): a config file must not store one. */
  readonly hasPassword: boolean;
}

/** Reads host, port and database of a `postgres://` / `postgresql://` URL; `invalid_input` for anything else. */
export function describePostgresUrl(url: string): PostgresTarget {
  // The URL may hold a password: neither the message nor a cause repeats it (URL's own error keeps its input).
  const parsed = URL.parse(url);
  if (parsed === null) {
    throw new StorageError({ code: 'invalid_input', message: 'The PostgreSQL URL is not a valid URL.' });
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
    database: databaseName(parsed.pathname.slice(1)) || '(default)',
    hasPassword: parsed.password !== '',
  };
}

/** The database's name as the path spells it, `%` escapes read; `invalid_input` for a broken escape. */
function databaseName(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch (cause) {
    throw new StorageError({
      code: 'invalid_input',
      message: 'The database name in the PostgreSQL URL has a broken % escape (write a % itself as %25).',
      cause,
    });
  }
}
