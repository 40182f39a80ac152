import type { Migration } from './migration.ts';

/** SQLite step 17 (in its own file: `migrations.ts` is at the size limit). */
export const mcpUserCredentialsSqliteMigration: Migration = {
  version: 17,
  name: 'per-user values for MCP header templates',
  // Each user's own values for a server's header template (`Authorization: Bearer {api_key}`), sealed per server
  // and user. The template itself is a setting: it holds placeholders, not secrets.
  sql: `
CREATE TABLE mcp_user_credentials (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
CREATE INDEX mcp_user_credentials_by_user ON mcp_user_credentials (user_id);
`,
};
