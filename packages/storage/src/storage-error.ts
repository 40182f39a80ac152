import { ToolbusError } from '@toolbus/spec';

/** Every code a storage failure can carry. Callers branch on these, never on message text. */
export type StorageErrorCode =
  | 'schema_too_new' // the database was written by a newer toolbus (its schema version is unknown here)
  | 'invalid_secret_key' // the configured key is not 32 bytes of base64
  | 'insecure_key_file' // the key file is readable by group or others
  | 'secret_key_mismatch' // the database was encrypted with another key
  | 'secret_undecryptable' // one stored secret failed authentication (wrong key, tampering, or a copied value)
  | 'not_found' // the row an update or read needs does not exist
  | 'conflict' // a uniqueness rule was broken (same email, same MCP server name)
  | 'invalid_input' // the values break a rule of the schema (e.g. a tool row with two sources)
  | 'unreachable' // the database server (PostgreSQL) did not answer or refused the connection
  | 'unreadable_database'; // a SQLite file that cannot be opened or is not a database (the message names it)

/** A storage operation failed for a stated reason. Messages never contain secret values. */
export class StorageError extends ToolbusError<StorageErrorCode> {
  static override readonly errorName = 'StorageError';
}
