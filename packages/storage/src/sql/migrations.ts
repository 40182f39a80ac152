import { postgresSteps } from './postgres-steps.ts';
import { sqliteSteps } from './sqlite-steps.ts';

/**
 * One schema step, for both databases. Versions are consecutive integers from 1; a released step is never edited.
 * `sql` is one script when it runs on both alike, else a script per database (the steps written before storage
 * was written once, and the few whose types or DDL differ).
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string | { readonly sqlite: string; readonly postgres: string };
}

const historyNames = [
  'initial schema',
  'chats, turns, history and packet streams',
  'connected apps for the egress proxy',
  'turn input; user roles, API keys and web sessions',
  'organisations and their members; chats and files belong to one',
  'memories belong to an organisation',
  'research checkpoints: where a running Deep Research turn stands, for a replica that resumes it',
  'API keys and web sessions bound to an organisation; pending MCP OAuth authorizations',
  'chats by activity',
  'running turns by chat',
  'packets of running turns in an append-only log',
  'persona names are unique, ignoring case and surrounding spaces',
  'web sessions remember the key that made them and hold its scopes; minting keys is a scope',
  'an MCP OAuth authorization is bound to the browser that started it',
  'connected apps belong to an organisation',
  'organisation invitations',
];

/** Storage's schema, in order, for SQLite and PostgreSQL alike. Append new steps; never rewrite old ones. */
export const storageMigrations: readonly Migration[] = [
  ...historyNames.map((name, index) => ({
    version: index + 1,
    name,
    sql: { sqlite: sqliteSteps[index + 1] ?? '', postgres: postgresSteps[index + 1] ?? '' },
  })),
  {
    version: 17,
    name: 'per-user values for MCP header templates',
    // Each user's own values for a server's header template (`Authorization: Bearer {api_key}`), sealed per server
    // and user. The template itself is a setting: it holds placeholders, not secrets. (PostgreSQL's old step 11.)
    sql: {
      sqlite: mcpUserCredentialsStep('TEXT', 'TEXT'),
      postgres: mcpUserCredentialsStep('text', 'timestamptz'),
    },
  },
  {
    version: 18,
    name: 'JSON columns named alike on both databases',
    // From here on each store is written once: PostgreSQL's JSON columns take SQLite's names. (Their types stay:
    // the stores write JSON text to both and read it back as text; see open-postgres-storage's type parsers.)
    // Invitations get PostgreSQL's insertion order, as every other table listed oldest first has.
    sql: {
      sqlite: '',
      postgres: `
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
`,
    },
  },
];

/**
 * PostgreSQL databases of the releases before storage was written once numbered their own steps, 1 to 11: the
 * version here that each of them reached (index: that old version).
 */
export const postgresLegacyVersions: readonly number[] = [0, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17];

/** The name PostgreSQL's old step 1 was recorded under: it tells an old numbering from today's. */
export const postgresLegacyFirstName = 'initial schema: every store of the SQLite schema version 4';

function mcpUserCredentialsStep(text: string, time: string): string {
  return `
CREATE TABLE mcp_user_credentials (
  server_id ${text} NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id ${text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret ${text} NOT NULL,
  updated_at ${time} NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
CREATE INDEX mcp_user_credentials_by_user ON mcp_user_credentials (user_id);
`;
}
