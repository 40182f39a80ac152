import { releasedSteps } from './released-steps.ts';
import { perDatabase } from './step-words.ts';

/**
 * One schema step, for both databases. Versions are consecutive integers from 1; a released step is never edited.
 * `sql` is one script when it runs on both alike, else a script per database, made from one declaration by
 * `perDatabase` (step-words.ts: the databases' differences are data).
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string | { readonly sqlite: string; readonly postgres: string };
}

/** Storage's schema, in order, for SQLite and PostgreSQL alike. Append new steps; never rewrite old ones. */
export const storageMigrations: readonly Migration[] = [
  ...releasedSteps.map((step, index) => ({
    version: index + 1,
    name: step.name,
    sql: perDatabase(step.sql),
  })),
  {
    version: 18,
    name: 'JSON columns named alike on both databases',
    // From here on each store is written once: PostgreSQL's JSON columns take SQLite's names. (Their types stay:
    // the stores write JSON text to both and read it back as text; see open-postgres-storage's type parsers.)
    // Invitations get PostgreSQL's insertion order, as every other table listed oldest first has.
    sql: perDatabase((d) =>
      d.pg(`
ALTER TABLE mcp_servers RENAME COLUMN args TO args_json;
ALTER TABLE settings RENAME COLUMN value TO value_json;
ALTER TABLE chat_turns RENAME COLUMN input TO input_json;
ALTER TABLE chat_messages RENAME COLUMN message TO message_json;
ALTER TABLE chat_packets RENAME COLUMN packet TO packet_json;
ALTER TABLE research_checkpoints RENAME COLUMN checkpoint TO checkpoint_json;
ALTER TABLE connected_apps RENAME COLUMN url_patterns TO url_patterns_json;
ALTER TABLE connected_apps RENAME COLUMN actions TO actions_json;
ALTER TABLE api_keys RENAME COLUMN scopes TO scopes_json;
ALTER TABLE web_sessions RENAME COLUMN scopes TO scopes_json;
ALTER TABLE organization_invitations ADD COLUMN ordinal bigint GENERATED ALWAYS AS IDENTITY;
`),
    ),
  },
  {
    version: 19,
    name: 'a turn keeps the token of the closer that ended it',
    // A closer whose end committed but whose reply was lost (the connection dropped after COMMIT) tries again: the
    // token tells its own end from another closer's, so it still ends the shared log (see FinishChatTurn.endToken).
    sql: 'ALTER TABLE chat_turns ADD COLUMN end_token TEXT;',
  },
];

/**
 * PostgreSQL databases of the releases before storage was written once numbered their own steps, 1 to 11: the
 * version here that each of them reached (index: that old version).
 */
export const postgresLegacyVersions: readonly number[] = [0, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17];

/** The name PostgreSQL's old step 1 was recorded under: it tells an old numbering from today's. */
export const postgresLegacyFirstName = 'initial schema: every store of the SQLite schema version 4';
