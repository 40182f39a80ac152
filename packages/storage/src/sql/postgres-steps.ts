// The PostgreSQL schema steps of the releases before storage was written once, keyed by the version of the SQLite
// step they match (PostgreSQL numbered its own 1 to 11: see postgresLegacyVersions): released, so never edited.
// The same tables and rules as SQLite's, in PostgreSQL's types (timestamptz, jsonb/json, bytea, identity columns
// for insertion order). JSON that is replayed verbatim (messages, packets) is `json`, which keeps the text as
// written; `jsonb` would reorder keys.

const searchUsageCheck = `CHECK (search_usage IN ('auto', 'enabled', 'disabled'))`;

/** PostgreSQL's SQL of steps 1 to 16; a step missing here was folded into step 1, or is SQLite's alone. */
export const postgresSteps: Readonly<Record<number, string>> = {
  // PostgreSQL's step 1: initial schema: every store of the SQLite schema version 4.
  4: `
CREATE TABLE storage_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE users (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  email text NOT NULL UNIQUE,
  name text,
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user')),
  memory_tool_enabled boolean NOT NULL DEFAULT false,
  search_usage text NOT NULL DEFAULT 'auto' ${searchUsageCheck},
  created_at timestamptz NOT NULL
);
CREATE TABLE personas (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  search_usage text NOT NULL DEFAULT 'auto' ${searchUsageCheck},
  created_at timestamptz NOT NULL
);
CREATE TABLE mcp_servers (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  transport text NOT NULL CHECK (transport IN ('stdio', 'streamable-http', 'sse')),
  url text,
  command text,
  args jsonb NOT NULL DEFAULT '[]',
  auth_type text NOT NULL CHECK (auth_type IN ('none', 'api-key', 'headers', 'oauth')),
  headers_secret text,
  api_key_secret text,
  environment_secret text,
  created_at timestamptz NOT NULL,
  CHECK (transport = 'stdio' OR environment_secret IS NULL),
  CHECK ((transport = 'stdio' AND command IS NOT NULL AND url IS NULL)
      OR (transport <> 'stdio' AND url IS NOT NULL AND command IS NULL))
);
CREATE TABLE persona_tools (
  id text PRIMARY KEY,
  persona_id text NOT NULL REFERENCES personas(id) ON DELETE CASCADE,
  position integer NOT NULL,
  built_in_id text,
  openapi_name text,
  openapi_document jsonb,
  openapi_auth_secret text,
  mcp_server_id text REFERENCES mcp_servers(id) ON DELETE CASCADE,
  mcp_tool_name text,
  created_at timestamptz NOT NULL,
  UNIQUE (persona_id, position),
  CHECK (num_nonnulls(built_in_id, openapi_document, mcp_server_id) = 1),
  CHECK ((mcp_server_id IS NULL) = (mcp_tool_name IS NULL)),
  CHECK ((openapi_document IS NULL) = (openapi_name IS NULL)),
  CHECK (openapi_document IS NOT NULL OR openapi_auth_secret IS NULL)
);
CREATE INDEX persona_tools_by_server ON persona_tools (mcp_server_id);
CREATE TABLE mcp_oauth_states (
  server_id text NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  state_secret text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
CREATE INDEX mcp_oauth_states_by_user ON mcp_oauth_states (user_id);
CREATE TABLE mcp_tool_approvals (
  server_id text NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool_name text NOT NULL,
  definition_hash text NOT NULL,
  approved_by text NOT NULL,
  approved_at timestamptz NOT NULL,
  PRIMARY KEY (server_id, tool_name)
);
CREATE TABLE memories (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  text text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX memories_by_user ON memories (user_id, created_at, ordinal);
CREATE TABLE uploaded_files (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  media_type text NOT NULL,
  size_bytes bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX uploaded_files_by_user ON uploaded_files (user_id, created_at, ordinal);
CREATE TABLE uploaded_file_contents (
  file_id text PRIMARY KEY REFERENCES uploaded_files(id) ON DELETE CASCADE,
  content bytea NOT NULL
);
CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE SEQUENCE chat_activity;
CREATE TABLE chats (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title text NOT NULL,
  persona_id text REFERENCES personas(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  activity bigint NOT NULL DEFAULT nextval('chat_activity')
);
CREATE INDEX chats_by_user ON chats (user_id, activity);
CREATE INDEX chats_by_persona ON chats (persona_id);
CREATE TABLE chat_turns (
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('chat', 'research')),
  status text NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted')),
  end_reason text,
  input json NOT NULL DEFAULT '[]',
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  last_sequence integer NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, turn_index),
  CHECK ((status = 'running') = (ended_at IS NULL))
);
-- One running turn per chat, held by the schema as well: two replicas starting a turn at once cannot both win.
CREATE UNIQUE INDEX chat_turns_one_running ON chat_turns (chat_id) WHERE status = 'running';
CREATE TABLE chat_messages (
  id text PRIMARY KEY,
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index integer,
  position integer NOT NULL,
  message json NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (chat_id, position)
);
CREATE TABLE chat_packets (
  chat_id text NOT NULL,
  turn_index integer NOT NULL,
  sequence integer NOT NULL,
  packet json NOT NULL,
  PRIMARY KEY (chat_id, turn_index, sequence),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
CREATE TABLE connected_apps (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id text REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  url_patterns jsonb NOT NULL,
  actions jsonb NOT NULL DEFAULT '[]',
  headers_secret text NOT NULL,
  organization_values_secret text,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (COALESCE(user_id, ''), name);
CREATE TABLE connected_app_user_values (
  app_id integer NOT NULL REFERENCES connected_apps(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (app_id, user_id)
);
CREATE INDEX connected_app_user_values_by_user ON connected_app_user_values (user_id);
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at, ordinal);
CREATE TABLE web_sessions (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_by_expiry ON web_sessions (expires_at);
`,
  // PostgreSQL's step 2: organisations and their members; chats and files belong to one.
  5: `
CREATE TABLE organizations (
  id text PRIMARY KEY,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);
INSERT INTO organizations (id, name, created_at) VALUES ('default', 'Default', now());
CREATE TABLE organization_members (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  ordinal bigint GENERATED ALWAYS AS IDENTITY,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_by_user ON organization_members (user_id, created_at, ordinal);
INSERT INTO organization_members (organization_id, user_id, role, created_at)
  SELECT 'default', id, CASE role WHEN 'admin' THEN 'admin' ELSE 'member' END, created_at FROM users ORDER BY ordinal;
ALTER TABLE chats ADD COLUMN organization_id text NOT NULL DEFAULT 'default' REFERENCES organizations(id);
ALTER TABLE uploaded_files ADD COLUMN organization_id text NOT NULL DEFAULT 'default' REFERENCES organizations(id);
`,
  // PostgreSQL's step 3: memories belong to an organisation.
  6: `
ALTER TABLE memories ADD COLUMN organization_id text NOT NULL DEFAULT 'default' REFERENCES organizations(id);
CREATE INDEX memories_by_user_organization ON memories (user_id, organization_id, created_at, ordinal);
`,
  // PostgreSQL's step 4: research checkpoints: where a running Deep Research turn stands, for a replica that resumes it.
  7: `
CREATE TABLE research_checkpoints (
  chat_id text NOT NULL,
  turn_index integer NOT NULL,
  checkpoint json NOT NULL,
  saved_at timestamptz NOT NULL,
  PRIMARY KEY (chat_id, turn_index),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
`,
  // PostgreSQL's step 5: API keys and web sessions bound to an organisation; pending MCP OAuth authorizations.
  8: `
ALTER TABLE api_keys ADD COLUMN organization_id text NOT NULL DEFAULT 'default' REFERENCES organizations(id) ON DELETE CASCADE;
UPDATE api_keys SET organization_id = COALESCE(
  (SELECT m.organization_id FROM organization_members m WHERE m.user_id = api_keys.user_id
    ORDER BY m.created_at, m.ordinal LIMIT 1),
  'default');
ALTER TABLE web_sessions ADD COLUMN organization_id text REFERENCES organizations(id) ON DELETE CASCADE;
CREATE TABLE mcp_oauth_pending (
  state_hash text PRIMARY KEY,
  server_id text NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_url text NOT NULL,
  return_to text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX mcp_oauth_pending_by_user ON mcp_oauth_pending (user_id, created_at);
CREATE INDEX mcp_oauth_pending_by_expiry ON mcp_oauth_pending (expires_at);
`,
  // PostgreSQL's step 6: persona names are unique, ignoring case and surrounding spaces.
  // As SQLite's step 12: names trimmed; of duplicates the oldest keeps the name and later ones (by creation
  // time, then insertion order) become "name (2)", "name (3)", …, or get their id appended should that be taken
  // too, so a database holding duplicates still migrates. The store writes name_key in code from then on.
  12: `
ALTER TABLE personas ADD COLUMN name_key text;
UPDATE personas SET name = btrim(name) WHERE name <> btrim(name);
UPDATE personas SET name = personas.name || ' (' || ranked.rank || ')'
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY created_at, ordinal) AS rank FROM personas) ranked
WHERE ranked.id = personas.id AND ranked.rank > 1;
UPDATE personas SET name = personas.name || ' ' || personas.id
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY created_at, ordinal) AS rank FROM personas) ranked
WHERE ranked.id = personas.id AND ranked.rank > 1;
UPDATE personas SET name_key = lower(name);
ALTER TABLE personas ALTER COLUMN name_key SET NOT NULL;
CREATE UNIQUE INDEX personas_by_name_key ON personas (name_key);
`,
  // PostgreSQL's step 7: web sessions remember the key that made them and hold its scopes; minting keys is a scope.
  // As SQLite's step 13: sessions record their key and scopes, earlier sessions end (fail closed), and keys that
  // hold "admin" also get the new "keys" scope.
  13: `
DELETE FROM web_sessions;
ALTER TABLE web_sessions ADD COLUMN key_id text;
ALTER TABLE web_sessions ADD COLUMN scopes jsonb NOT NULL DEFAULT '[]'::jsonb;
CREATE INDEX web_sessions_by_key ON web_sessions (key_id) WHERE key_id IS NOT NULL;
UPDATE api_keys SET scopes = scopes || '["keys"]'::jsonb WHERE scopes ? 'admin' AND NOT scopes ? 'keys';
`,
  // PostgreSQL's step 8: an MCP OAuth authorization is bound to the browser that started it.
  // As SQLite's step 14.
  14: `
DELETE FROM mcp_oauth_pending;
ALTER TABLE mcp_oauth_pending ADD COLUMN browser_hash text;
`,
  // PostgreSQL's step 9: connected apps belong to an organisation.
  // As SQLite's step 15.
  15: `
ALTER TABLE connected_apps ADD COLUMN organization_id text NOT NULL DEFAULT 'default' REFERENCES organizations(id) ON DELETE CASCADE;
DROP INDEX connected_apps_by_owner_name;
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (organization_id, COALESCE(user_id, ''), name);
`,
  // PostgreSQL's step 10: organisation invitations. As SQLite's step 16.
  16: `
CREATE TABLE organization_invitations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  invited_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX organization_invitations_by_email ON organization_invitations (organization_id, email);
CREATE INDEX organization_invitations_of_email ON organization_invitations (email, created_at);
`,
};
