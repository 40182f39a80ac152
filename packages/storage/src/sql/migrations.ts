// Storage's schema steps, each declared once for both databases, what differs being data (`StepWords`). A released
// step is never edited. On PostgreSQL, tables carry an `ordinal` identity column for insertion order, and JSON
// replayed verbatim (messages, packets) is `json`, which keeps the text as written.
import { firstSchemaSteps } from './first-schema-steps.ts';
import type { Migration } from './migrate.ts';
import { byOrdinal, ordinal, organizationId } from './step-words.ts';

/** Storage's schema, in order, for SQLite and PostgreSQL alike. Append new steps; never rewrite old ones. */
export const storageMigrations: readonly Migration[] = [
  ...firstSchemaSteps,
  {
    name: 'organisations and their members; chats and files belong to one',
    // SQLite cannot add a column with a REFERENCES clause and a non-null default, so there the owning organisation
    // of a chat or a file is checked by the stores' callers, and organisations are never deleted while they own rows.
    sql: (d) => `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,${ordinal(d)}
  name TEXT NOT NULL UNIQUE,
  created_at ${d.time} NOT NULL
);
INSERT INTO organizations (id, name, created_at) VALUES ('default', 'Default', ${d.now});
CREATE TABLE organization_members (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,${ordinal(d)}
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at ${d.time} NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_by_user ON organization_members (user_id, created_at${byOrdinal(d)});
INSERT INTO organization_members (organization_id, user_id, role, created_at)
  SELECT 'default', id, CASE role WHEN 'admin' THEN 'admin' ELSE 'member' END, created_at FROM users${d.pg(' ORDER BY ordinal')};
ALTER TABLE chats ADD COLUMN ${organizationId(d)};
ALTER TABLE uploaded_files ADD COLUMN ${organizationId(d)};
`,
  },
  {
    name: 'memories belong to an organisation',
    sql: (d) => `
ALTER TABLE memories ADD COLUMN ${organizationId(d)};
CREATE INDEX memories_by_user_organization ON memories (user_id, organization_id, created_at${byOrdinal(d)});
`,
  },
  {
    name: 'research checkpoints: where a running Deep Research turn stands, for a replica that resumes it',
    sql: (d) => `
CREATE TABLE research_checkpoints (
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  ${d.jsonColumn('checkpoint')} ${d.json} NOT NULL,
  saved_at ${d.time} NOT NULL,
  PRIMARY KEY (chat_id, turn_index),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
`,
  },
  {
    name: 'API keys and web sessions bound to an organisation; pending MCP OAuth authorizations',
    // A key made before organisations were bound to keys acts in its user's first organisation (as it did by
    // default), else the default one.
    sql: (d) => `
ALTER TABLE api_keys ADD COLUMN ${organizationId(d, ' ON DELETE CASCADE')};
UPDATE api_keys SET organization_id = COALESCE(
  (SELECT m.organization_id FROM organization_members m WHERE m.user_id = api_keys.user_id
    ORDER BY m.created_at, m.${d.order} LIMIT 1),
  'default');
ALTER TABLE web_sessions ADD COLUMN organization_id TEXT${d.pg(' REFERENCES organizations(id) ON DELETE CASCADE')};
CREATE TABLE mcp_oauth_pending (
  state_hash TEXT PRIMARY KEY,
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_url TEXT NOT NULL,
  return_to TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  expires_at ${d.time} NOT NULL
);
CREATE INDEX mcp_oauth_pending_by_user ON mcp_oauth_pending (user_id, created_at);
CREATE INDEX mcp_oauth_pending_by_expiry ON mcp_oauth_pending (expires_at);
`,
  },
  {
    name: 'chats by activity',
    // A chat's activity is MAX(activity) + 1 on SQLite (PostgreSQL: a sequence): without this index that read walks
    // every chat.
    sql: (d) => d.lite('CREATE INDEX chats_by_activity ON chats (activity);'),
  },
  {
    name: 'running turns by chat',
    // Starting a turn checks that its chat has none running: indexed by status alone, that walked every running
    // turn (a quarter of a millisecond with 2,000). PostgreSQL's index is keyed by chat from step 2.
    sql: (d) =>
      d.lite(`
DROP INDEX chat_turns_running;
CREATE INDEX chat_turns_running_by_chat ON chat_turns (chat_id) WHERE status = 'running';
`),
  },
  {
    name: 'packets of running turns in an append-only log',
    // SQLite's alone; why, and how it is read, in running-packet-log.ts. AUTOINCREMENT: ids are never reused once
    // the head is swept, so "rows after id N" means rows written later.
    sql: (d) =>
      d.lite(`
CREATE TABLE chat_packet_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  sequence INTEGER NOT NULL,
  packet_json TEXT NOT NULL
);
`),
  },
  {
    name: 'persona names are unique, ignoring case and surrounding spaces',
    // Why: rules/persona-name.ts. A database holding duplicates must still open: the oldest persona of a name keeps
    // it, later ones become "name (2)", "name (3)", … (the id appended if that is taken too). The store writes
    // name_key; here the database's lower() fills it for existing rows.
    sql: (d) => {
      const ranked = `(SELECT id, ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY created_at, ${d.order}) AS rank FROM personas) ranked`;
      return `
ALTER TABLE personas ADD COLUMN name_key TEXT;
UPDATE personas SET name = trim(name) WHERE name <> trim(name);
UPDATE personas SET name = personas.name || ' (' || ranked.rank || ')' FROM ${ranked}
WHERE ranked.id = personas.id AND ranked.rank > 1;
UPDATE personas SET name = personas.name || ' ' || personas.id FROM ${ranked}
WHERE ranked.id = personas.id AND ranked.rank > 1;
UPDATE personas SET name_key = lower(name);
${d.pg('ALTER TABLE personas ALTER COLUMN name_key SET NOT NULL;')}
CREATE UNIQUE INDEX personas_by_name_key ON personas (name_key);
`;
    },
  },
  {
    name: 'web sessions remember the key that made them and hold its scopes; minting keys is a scope',
    // A session got every scope of its user's role whatever key signed it in, and outlived that key. Now it records
    // the key and its scopes (never more than the key held). Sessions from before end (failing closed). Minting keys
    // needs the new "keys" scope: keys holding "admin" get it (they could mint through the admin API anyway).
    sql: (d) => `
DELETE FROM web_sessions;
ALTER TABLE web_sessions ADD COLUMN key_id TEXT;
ALTER TABLE web_sessions ADD COLUMN ${d.jsonColumn('scopes')} ${d.jsonb} NOT NULL DEFAULT '[]';
CREATE INDEX web_sessions_by_key ON web_sessions (key_id) WHERE key_id IS NOT NULL;
${d.lite(`UPDATE api_keys SET scopes_json = json_insert(scopes_json, '$[#]', 'keys')
WHERE EXISTS (SELECT 1 FROM json_each(api_keys.scopes_json) WHERE value = 'admin')
  AND NOT EXISTS (SELECT 1 FROM json_each(api_keys.scopes_json) WHERE value = 'keys');`)}
${d.pg(`UPDATE api_keys SET scopes = scopes || '["keys"]'::jsonb WHERE scopes ? 'admin' AND NOT scopes ? 'keys';`)}
`,
  },
  {
    name: 'an MCP OAuth authorization is bound to the browser that started it',
    // Identified by state alone, a callback let a victim who opened an attacker's authorization URL link their
    // account to the attacker's. Pending rows from before have no browser and are dropped (they live ten minutes).
    sql: () => `
DELETE FROM mcp_oauth_pending;
ALTER TABLE mcp_oauth_pending ADD COLUMN browser_hash TEXT;
`,
  },
  {
    name: 'connected apps belong to an organisation',
    // A shared app was injected into the sandboxes of every organisation. Existing apps go to the default one;
    // names are unique per organisation and owner.
    sql: (d) => `
ALTER TABLE connected_apps ADD COLUMN ${organizationId(d, ' ON DELETE CASCADE')};
DROP INDEX connected_apps_by_owner_name;
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (organization_id, COALESCE(user_id, ''), name);
`,
  },
  {
    name: 'organisation invitations',
    // An admin added any account by email, with no consent, learning which emails had accounts; now an email is
    // invited, and its account joins when it accepts.
    sql: (d) => `
CREATE TABLE organization_invitations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at ${d.time} NOT NULL
);
CREATE UNIQUE INDEX organization_invitations_by_email ON organization_invitations (organization_id, email);
CREATE INDEX organization_invitations_of_email ON organization_invitations (email, created_at);
`,
  },
  {
    name: 'per-user values for MCP header templates',
    // Each user's own values for a server's header template (`Authorization: Bearer {api_key}`), sealed per server
    // and user. The template itself is a setting: it holds placeholders, not secrets.
    sql: (d) => `
CREATE TABLE mcp_user_credentials (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret TEXT NOT NULL,
  updated_at ${d.time} NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
CREATE INDEX mcp_user_credentials_by_user ON mcp_user_credentials (user_id);
`,
  },
  {
    name: 'JSON columns named alike on both databases',
    // From here on each store is written once: PostgreSQL's JSON columns take SQLite's names (their types stay:
    // postgres-pool.ts reads them as text). Invitations get the insertion order every table listed oldest first has.
    sql: (d) =>
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
  },
  {
    name: 'a turn keeps the token of the closer that ended it',
    // Tells a closer's end retried after a lost COMMIT reply from another closer's (FinishChatTurn.endToken).
    sql: () => 'ALTER TABLE chat_turns ADD COLUMN end_token TEXT;',
  },
];
