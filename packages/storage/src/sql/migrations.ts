// Storage's schema steps, each declared once for both databases: what differs between SQLite and PostgreSQL is data
// (`StepWords`: types, insertion order, and what one database alone has). A released step is never edited: what it
// does on either database never changes. PostgreSQL's releases folded steps 1 to 4 into their own step 1 (see
// postgresLegacyVersions); their tables carry an `ordinal` identity column for insertion order, and JSON replayed
// verbatim (messages, packets) is `json`, which keeps the text as written.
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
    // Creating, renaming and every turn's end set a chat's activity to MAX(activity) + 1 on SQLite: without this
    // index that read walks every chat. (PostgreSQL takes activity from a sequence.)
    sql: (d) => d.lite('CREATE INDEX chats_by_activity ON chats (activity);'),
  },
  {
    name: 'running turns by chat',
    // Starting a turn checks that its chat has none running. Indexed by status alone, that check walked every
    // running turn of every chat (a quarter of a millisecond with 2,000). Keyed by chat, it reads one entry;
    // listing all running turns scans the same index. PostgreSQL's index is keyed by chat from step 2.
    sql: (d) =>
      d.lite(`
DROP INDEX chat_turns_running;
CREATE INDEX chat_turns_running_by_chat ON chat_turns (chat_id) WHERE status = 'running';
`),
  },
  {
    name: 'packets of running turns in an append-only log',
    // chat_packets is keyed by turn: with many turns streaming at once, every commit touched one page per turn.
    // Rows of running turns go to this log in arrival order instead (a commit touches its last pages only) and
    // move to chat_packets, one turn's rows together, when the turn ends. No index: readers of a running turn in
    // the process that writes it know its row ids; any other reader scans (rare: start-up, another process).
    // AUTOINCREMENT: ids are never reused once the head is swept, so "rows after id N" means rows written later.
    // SQLite's alone: PostgreSQL appends to chat_packets directly.
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
    // People pick a persona by name; two of the same name made that a guess (the first one listed won). Names are
    // trimmed, and a database that already holds duplicates must still open: the oldest persona of a name keeps
    // it, later ones (by creation time, then insertion order) are renamed "name (2)", "name (3)", …; should such a
    // name be taken too, the persona's id is appended. The store writes name_key (the trimmed, lower-cased name,
    // computed in code so both databases fold case alike); here the database's lower() fills it for existing rows.
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
    // A session used to get every scope of its user's role whatever key signed it in, and outlived that key. Now it
    // records the key and the scopes it was given (never more than the key held); revoking the key deletes it.
    // Sessions from before cannot tell which key made them, so they end (people sign in again): failing closed.
    // Minting keys needs the new "keys" scope; keys that already hold "admin" get it, as an admin key could mint
    // keys for anyone through the admin API anyway. Other keys do not: that was the hole.
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
    // The callback was identified by state alone, so a victim who opened an attacker's authorization URL linked
    // their account to the attacker's. It now needs the starting browser's cookie too; pending rows from before
    // have none and are dropped (they live ten minutes: whoever was connecting starts again).
    sql: () => `
DELETE FROM mcp_oauth_pending;
ALTER TABLE mcp_oauth_pending ADD COLUMN browser_hash TEXT;
`,
  },
  {
    name: 'connected apps belong to an organisation',
    // A shared app carried no organisation, so it was listed for, and injected into the sandboxes of, every
    // organisation. Apps now belong to one, like documents and memories; existing ones go to the default
    // organisation. Names are unique per organisation and owner.
    sql: (d) => `
ALTER TABLE connected_apps ADD COLUMN ${organizationId(d, ' ON DELETE CASCADE')};
DROP INDEX connected_apps_by_owner_name;
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (organization_id, COALESCE(user_id, ''), name);
`,
  },
  {
    name: 'organisation invitations',
    // An organisation admin added any account by email, with no consent, and learnt which emails had accounts.
    // They now invite an email; its account joins when it accepts.
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
    // From here on each store is written once: PostgreSQL's JSON columns take SQLite's names. (Their types stay:
    // the stores write JSON text to both and read it back as text; see open-postgres-storage's type parsers.)
    // Invitations get PostgreSQL's insertion order, as every other table listed oldest first has.
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
    // A closer whose end committed but whose reply was lost (the connection dropped after COMMIT) tries again: the
    // token tells its own end from another closer's, so it still ends the shared log (see FinishChatTurn.endToken).
    sql: () => 'ALTER TABLE chat_turns ADD COLUMN end_token TEXT;',
  },
];
