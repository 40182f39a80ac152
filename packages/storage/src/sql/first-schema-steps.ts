// Steps 1 to 4 of storage's schema, which PostgreSQL's first release folded into its own step 1 (see
// postgresLegacyVersions). Released, so never edited.
import type { Migration } from './migrate.ts';
import { byOrdinal, ordinal, searchUsage } from './step-words.ts';

export const firstSchemaSteps: readonly Migration[] = [
  {
    name: 'initial schema',
    sql: (d) => `
CREATE TABLE storage_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,${ordinal(d)}
  email TEXT NOT NULL UNIQUE,
  name TEXT,
  ${d.flag('memory_tool_enabled', false)},
  ${searchUsage},
  created_at ${d.time} NOT NULL
);
CREATE TABLE personas (
  id TEXT PRIMARY KEY,${ordinal(d)}
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  ${searchUsage},
  created_at ${d.time} NOT NULL
);
CREATE TABLE mcp_servers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  transport TEXT NOT NULL CHECK (transport IN ('stdio', 'streamable-http', 'sse')),
  url TEXT,
  command TEXT,
  ${d.jsonColumn('args')} ${d.jsonb} NOT NULL DEFAULT '[]',
  auth_type TEXT NOT NULL CHECK (auth_type IN ('none', 'api-key', 'headers', 'oauth')),
  headers_secret TEXT,
  api_key_secret TEXT,
  environment_secret TEXT,
  created_at ${d.time} NOT NULL,
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
  openapi_document ${d.jsonb},
  openapi_auth_secret TEXT,
  mcp_server_id TEXT REFERENCES mcp_servers(id) ON DELETE CASCADE,
  mcp_tool_name TEXT,
  created_at ${d.time} NOT NULL,
  ${d.pg('UNIQUE (persona_id, position),')}
  CHECK (${d.lite('(built_in_id IS NOT NULL) + (openapi_document IS NOT NULL) + (mcp_server_id IS NOT NULL)')}${d.pg('num_nonnulls(built_in_id, openapi_document, mcp_server_id)')} = 1),
  CHECK ((mcp_server_id IS NULL) = (mcp_tool_name IS NULL)),
  CHECK ((openapi_document IS NULL) = (openapi_name IS NULL)),
  CHECK (openapi_document IS NOT NULL OR openapi_auth_secret IS NULL)
);
${d.lite('CREATE INDEX persona_tools_by_persona ON persona_tools (persona_id, position);')}
${d.pg('CREATE INDEX persona_tools_by_server ON persona_tools (mcp_server_id);')}
CREATE TABLE mcp_oauth_states (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  state_secret TEXT NOT NULL,
  updated_at ${d.time} NOT NULL,
  PRIMARY KEY (server_id, user_id)
);
${d.pg('CREATE INDEX mcp_oauth_states_by_user ON mcp_oauth_states (user_id);')}
CREATE TABLE mcp_tool_approvals (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool_name TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  approved_at ${d.time} NOT NULL,
  PRIMARY KEY (server_id, tool_name)
);
CREATE TABLE memories (
  id TEXT PRIMARY KEY,${ordinal(d)}
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);
CREATE INDEX memories_by_user ON memories (user_id, created_at${byOrdinal(d)});
CREATE TABLE uploaded_files (
  id TEXT PRIMARY KEY,${ordinal(d)}
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size_bytes ${d.bigint} NOT NULL,
  sha256 TEXT NOT NULL,
  created_at ${d.time} NOT NULL
);
CREATE INDEX uploaded_files_by_user ON uploaded_files (user_id, created_at${byOrdinal(d)});
CREATE TABLE uploaded_file_contents (
  file_id TEXT PRIMARY KEY REFERENCES uploaded_files(id) ON DELETE CASCADE,
  content ${d.bytes} NOT NULL
);
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  ${d.jsonColumn('value')} ${d.jsonb} NOT NULL,
  updated_at ${d.time} NOT NULL
);
`,
  },
  {
    name: 'chats, turns, history and packet streams',
    // PostgreSQL holds "one running turn per chat" in the schema too: two replicas starting a turn at once cannot
    // both win. Its chats take their activity from a sequence.
    sql: (d) => `
${d.pg('CREATE SEQUENCE chat_activity;')}
CREATE TABLE chats (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  persona_id TEXT REFERENCES personas(id) ON DELETE SET NULL,
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL,
  activity ${d.bigint} NOT NULL${d.pg(" DEFAULT nextval('chat_activity')")}
);
CREATE INDEX chats_by_user ON chats (user_id, activity);
${d.pg('CREATE INDEX chats_by_persona ON chats (persona_id);')}
CREATE TABLE chat_turns (
  chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chat', 'research')),
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted')),
  end_reason TEXT,
  started_at ${d.time} NOT NULL,
  ended_at ${d.time},
  ${d.pg('last_sequence integer NOT NULL DEFAULT 0,')}
  PRIMARY KEY (chat_id, turn_index),
  CHECK ((status = 'running') = (ended_at IS NULL))
);
${d.lite("CREATE INDEX chat_turns_running ON chat_turns (status) WHERE status = 'running';")}
${d.pg("CREATE UNIQUE INDEX chat_turns_one_running ON chat_turns (chat_id) WHERE status = 'running';")}
CREATE TABLE chat_messages (
  id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  turn_index INTEGER,
  position INTEGER NOT NULL,
  ${d.jsonColumn('message')} ${d.json} NOT NULL,
  created_at ${d.time} NOT NULL,
  UNIQUE (chat_id, position)
);
CREATE TABLE chat_packets (
  chat_id TEXT NOT NULL,
  turn_index INTEGER NOT NULL,
  sequence INTEGER NOT NULL,
  ${d.jsonColumn('packet')} ${d.json} NOT NULL,
  PRIMARY KEY (chat_id, turn_index, sequence),
  FOREIGN KEY (chat_id, turn_index) REFERENCES chat_turns(chat_id, turn_index) ON DELETE CASCADE
);
`,
  },
  {
    name: 'connected apps for the egress proxy',
    sql: (d) => `
CREATE TABLE connected_apps (
  id INTEGER ${d.lite('PRIMARY KEY AUTOINCREMENT')}${d.pg('GENERATED ALWAYS AS IDENTITY PRIMARY KEY')},
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  ${d.jsonColumn('url_patterns')} ${d.jsonb} NOT NULL,
  ${d.jsonColumn('actions')} ${d.jsonb} NOT NULL DEFAULT '[]',
  headers_secret TEXT NOT NULL,
  organization_values_secret TEXT,
  ${d.flag('enabled', true)},
  created_at ${d.time} NOT NULL
);
CREATE UNIQUE INDEX connected_apps_by_owner_name ON connected_apps (COALESCE(user_id, ''), name);
CREATE TABLE connected_app_user_values (
  app_id INTEGER NOT NULL REFERENCES connected_apps(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  values_secret TEXT NOT NULL,
  updated_at ${d.time} NOT NULL,
  PRIMARY KEY (app_id, user_id)
);
${d.pg('CREATE INDEX connected_app_user_values_by_user ON connected_app_user_values (user_id);')}
`,
  },
  {
    name: 'turn input; user roles, API keys and web sessions',
    sql: (d) => `
ALTER TABLE chat_turns ADD COLUMN ${d.jsonColumn('input')} ${d.json} NOT NULL DEFAULT '[]';
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user'));
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,${ordinal(d)}
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  ${d.jsonColumn('scopes')} ${d.jsonb} NOT NULL,
  created_at ${d.time} NOT NULL,
  last_used_at ${d.time},
  revoked_at ${d.time}
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at${byOrdinal(d)});
CREATE TABLE web_sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_hash TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  expires_at ${d.time} NOT NULL
);
${d.pg('CREATE INDEX web_sessions_by_expiry ON web_sessions (expires_at);')}
`,
  },
];
