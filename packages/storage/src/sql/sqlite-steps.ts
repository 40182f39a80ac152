// The SQLite schema steps of the releases before storage was written once, by version: released, so never edited.
// migrations.ts pairs each with its PostgreSQL counterpart.

const searchUsageCheck = `CHECK (search_usage IN ('auto', 'enabled', 'disabled'))`;

/** SQLite's SQL of steps 1 to 16. */
export const sqliteSteps: Readonly<Record<number, string>> = {
  1: `
CREATE TABLE storage_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT,
  memory_tool_enabled INTEGER NOT NULL DEFAULT 0 CHECK (memory_tool_enabled IN (0, 1)),
  search_usage TEXT NOT NULL DEFAULT 'auto' ${searchUsageCheck},
  created_at TEXT NOT NULL
);
CREATE TABLE personas (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  search_usage TEXT NOT NULL DEFAULT 'auto' ${searchUsageCheck},
  created_at TEXT NOT NULL
);
CREATE TABLE mcp_servers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  transport TEXT NOT NULL CHECK (transport IN ('stdio', 'streamable-http', 'sse')),
  url TEXT,
  command TEXT,
  args_json TEXT NOT NULL DEFAULT '[]',
  auth_type TEXT NOT NULL CHECK (auth_type IN ('none', 'api-key', 'headers', 'oauth')),
  headers_secret TEXT,
  api_key_secret TEXT,
  environment_secret TEXT,
  created_at TEXT NOT NULL,
  CHECK (transport = 'stdio' OR environment_secret IS NULL),
  CHECK ((transport = 'stdio' AND command IS NOT NULL AND url IS NULL)
      OR (transport <> 'stdio' AND url IS NOT NULL AND command IS NULL))
);
CREATE TABLE persona_tools (
  id TEXT PRIMARY KEY,
  persona_id TEXT NOT NULL REFERENCES personas(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  built_in_id TEXT,
  openapi_name TEXT,
  openapi_document TEXT,
  openapi_auth_secret TEXT,
  mcp_server_id TEXT REFERENCES mcp_servers(id) ON DELETE CASCADE,
  mcp_tool_name TEXT,
  created_at TEXT NOT NULL,
  CHECK ((built_in_id IS NOT NULL) + (openapi_document IS NOT NULL) + (mcp_server_id IS NOT NULL) = 1),
  CHECK ((mcp_server_id IS NULL) = (mcp_tool_name IS NULL)),
  CHECK ((openapi_document IS NULL) = (openapi_name IS NULL)),
  CHECK (openapi_document IS NOT NULL OR openapi_auth_secret IS NULL)
);
CREATE INDEX persona_tools_by_persona ON persona_tools (persona_id, position);
CREATE TABLE mcp_oauth_states (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  state_secret TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
CREATE TABLE mcp_tool_approvals (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool_name TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  approved_at TEXT NOT NULL,
  PRIMARY KEY (server_id, tool_name)
);
CREATE TABLE memories (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX memories_by_user ON memories (user_id, created_at);
CREATE TABLE uploaded_files (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX uploaded_files_by_user ON uploaded_files (user_id, created_at);
CREATE TABLE uploaded_file_contents (
  file_id TEXT PRIMARY KEY REFERENCES uploaded_files(id) ON DELETE CASCADE,
  content BLOB NOT NULL
);
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  2: `
CREATE TABLE chats (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  persona_id TEXT REFERENCES personas(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  activity INTEGER NOT NULL
);
CREATE INDEX chats_by_user ON chats (user_id, activity);
CREATE TABLE chat_turns (
  chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chat', 'research')),
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted')),
  end_reason TEXT,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  PRIMARY KEY (chat_id, turn_index),
  CHECK ((status = 'running') = (ended_at IS NULL))
);
CREATE INDEX chat_turns_running ON chat_turns (status) WHERE status = 'running';
CREATE TABLE chat_messages (
  id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index INTEGER,
  position INTEGER NOT NULL,
  message_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (chat_id, position)
);
CREATE TABLE chat_packets (
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  sequence INTEGER NOT NULL,
  packet_json TEXT NOT NULL,
  PRIMARY KEY (chat_id, turn_index, sequence),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
`,
  3: `
CREATE TABLE connected_apps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url_patterns_json TEXT NOT NULL,
  actions_json TEXT NOT NULL DEFAULT '[]',
  headers_secret TEXT NOT NULL,
  organization_values_secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (COALESCE(user_id, ''), name);
CREATE TABLE connected_app_user_values (
  app_id INTEGER NOT NULL REFERENCES connected_apps(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (app_id, user_id)
);
`,
  4: `
ALTER TABLE chat_turns ADD COLUMN input_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user'));
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  scopes_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
CREATE TABLE web_sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
`,
  // SQLite cannot add a column with a REFERENCES clause and a non-null default, so the owning organisation of
  // a chat or a file is checked by the stores' callers, and organisations are never deleted while they own rows.
  5: `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
INSERT INTO organizations (id, name, created_at) VALUES ('default', 'Default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
CREATE TABLE organization_members (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_by_user ON organization_members (user_id, created_at);
INSERT INTO organization_members (organization_id, user_id, role, created_at)
  SELECT 'default', id, CASE role WHEN 'admin' THEN 'admin' ELSE 'member' END, created_at FROM users;
ALTER TABLE chats ADD COLUMN organization_id TEXT NOT NULL DEFAULT 'default';
ALTER TABLE uploaded_files ADD COLUMN organization_id TEXT NOT NULL DEFAULT 'default';
`,
  // Like chats and files (version 5): no REFERENCES clause, so the callers check the organisation.
  6: `
ALTER TABLE memories ADD COLUMN organization_id TEXT NOT NULL DEFAULT 'default';
CREATE INDEX memories_by_user_organization ON memories (user_id, organization_id, created_at);
`,
  7: `
CREATE TABLE research_checkpoints (
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  checkpoint_json TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  PRIMARY KEY (chat_id, turn_index),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
`,
  // A key made before organisations were bound to keys acts in its user's first organisation (as it did by
  // default), else the default one.
  8: `
ALTER TABLE api_keys ADD COLUMN organization_id TEXT NOT NULL DEFAULT 'default';
UPDATE api_keys SET organization_id = COALESCE(
  (SELECT m.organization_id FROM organization_members m WHERE m.user_id = api_keys.user_id
    ORDER BY m.created_at, m.rowid LIMIT 1),
  'default');
ALTER TABLE web_sessions ADD COLUMN organization_id TEXT;
CREATE TABLE mcp_oauth_pending (
  state_hash TEXT PRIMARY KEY,
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_url TEXT NOT NULL,
  return_to TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX mcp_oauth_pending_by_user ON mcp_oauth_pending (user_id, created_at);
CREATE INDEX mcp_oauth_pending_by_expiry ON mcp_oauth_pending (expires_at);
`,
  // Creating, renaming and every turn's end set a chat's activity to MAX(activity) + 1: without this index that
  // read walks every chat, so a turn's end cost grew with the number of chats in the database.
  9: `
CREATE INDEX chats_by_activity ON chats (activity);
`,
  // Starting a turn checks that its chat has none running. Indexed by status alone, that check walked every
  // running turn of every chat, so a turn's start cost grew with the turns running at once (a quarter of a
  // millisecond with 2,000). Keyed by chat, it reads one entry; listing all running turns scans the same index.
  10: `
DROP INDEX chat_turns_running;
CREATE INDEX chat_turns_running_by_chat ON chat_turns (chat_id) WHERE status = 'running';
`,
  // chat_packets is keyed by turn: with many turns streaming at once, every commit touched one page per turn.
  // Rows of running turns go to this log in arrival order instead (a commit touches its last pages only) and
  // move to chat_packets, one turn's rows together, when the turn ends. No index: readers of a running turn in
  // the process that writes it know its row ids; any other reader scans (rare: start-up, another process).
  // AUTOINCREMENT: ids are never reused once the head is swept, so "rows after id N" means rows written later.
  11: `
CREATE TABLE chat_packet_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  sequence INTEGER NOT NULL,
  packet_json TEXT NOT NULL
);
`,
  // People pick a persona by name; two of the same name made that a guess (the first one listed won). Names are
  // trimmed, and a database that already holds duplicates must still open: the oldest persona of a name keeps
  // it, later ones (by creation time, then insertion order) are renamed "name (2)", "name (3)", …; should such a
  // name be taken too, the persona's id is appended. The store writes name_key (the trimmed, lower-cased name,
  // computed in code so both backends fold case alike); here SQLite's lower() fills it for existing rows.
  12: `
ALTER TABLE personas ADD COLUMN name_key TEXT;
UPDATE personas SET name = trim(name) WHERE name <> trim(name);
WITH ranked AS (
  SELECT id, ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY created_at, rowid) AS rank FROM personas
)
UPDATE personas SET name = name || ' (' || (SELECT rank FROM ranked WHERE ranked.id = personas.id) || ')'
WHERE id IN (SELECT id FROM ranked WHERE rank > 1);
WITH ranked AS (
  SELECT id, ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY created_at, rowid) AS rank FROM personas
)
UPDATE personas SET name = name || ' ' || id WHERE id IN (SELECT id FROM ranked WHERE rank > 1);
UPDATE personas SET name_key = lower(name);
CREATE UNIQUE INDEX personas_by_name_key ON personas (name_key);
`,
  // A session used to get every scope of its user's role whatever key signed it in, and outlived that key. Now it
  // records the key and the scopes it was given (never more than the key held); revoking the key deletes it.
  // Sessions from before cannot tell which key made them, so they end (people sign in again): failing closed.
  // Minting keys needs the new "keys" scope; keys that already hold "admin" get it, as an admin key could mint
  // keys for anyone through the admin API anyway. Other keys do not: that was the hole.
  13: `
DELETE FROM web_sessions;
ALTER TABLE web_sessions ADD COLUMN key_id TEXT;
ALTER TABLE web_sessions ADD COLUMN scopes_json TEXT NOT NULL DEFAULT '[]';
CREATE INDEX web_sessions_by_key ON web_sessions (key_id) WHERE key_id IS NOT NULL;
UPDATE api_keys SET scopes_json = json_insert(scopes_json, '$[#]', 'keys')
WHERE EXISTS (SELECT 1 FROM json_each(api_keys.scopes_json) WHERE value = 'admin')
  AND NOT EXISTS (SELECT 1 FROM json_each(api_keys.scopes_json) WHERE value = 'keys');
`,
  // The callback was identified by state alone, so a victim who opened an attacker's authorization URL linked
  // their account to the attacker's. It now needs the starting browser's cookie too; pending rows from before
  // have none and are dropped (they live ten minutes: whoever was connecting starts again).
  14: `
DELETE FROM mcp_oauth_pending;
ALTER TABLE mcp_oauth_pending ADD COLUMN browser_hash TEXT;
`,
  // A shared app carried no organisation, so it was listed for, and injected into the sandboxes of, every
  // organisation. Apps now belong to one, like documents and memories; existing ones go to the default
  // organisation. Names are unique per organisation and owner.
  15: `
ALTER TABLE connected_apps ADD COLUMN organization_id TEXT NOT NULL DEFAULT 'default';
DROP INDEX connected_apps_by_owner_name;
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (organization_id, COALESCE(user_id, ''), name);
`,
  // An organisation admin added any account by email, with no consent, and learnt which emails had accounts.
  // They now invite an email; its account joins when it accepts.
  16: `
CREATE TABLE organization_invitations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX organization_invitations_by_email ON organization_invitations (organization_id, email);
CREATE INDEX organization_invitations_of_email ON organization_invitations (email, created_at);
`,
};
