import type { McpTransport } from '@toolbus/spec';
import type { Generated } from 'kysely';
import type { ChatTurnKind, ChatTurnStatus } from '../chat.ts';
import type { McpAuthType } from '../mcp-server.ts';
import type { OrganizationRole } from '../organization.ts';
import type { SearchUsage, UserRole } from '../user.ts';

// The tables as the stores see them, the same on both databases since migration 18 (what a column reads as:
// postgres-pool.ts; booleans alone differ, 0/1 on SQLite, read with `Boolean()`). PostgreSQL's `ordinal` is left out
// (see StoreContext.oldestFirst). A domain type that is one table's row is that row under camelCase names
// (`StoredRow`), so a column's meaning is said here once; a column a CHECK limits to a few words is their union.

type Time = string;
type Flag = boolean | number;

export interface StorageSchema {
  storage_meta: { key: string; value: string };
  schema_migrations: { version: number; name: string; applied_at: Time };
  users: {
    id: string;
    email: string;
    name: string | null;
    role: Generated<UserRole>;
    memory_tool_enabled: Flag;
    search_usage: SearchUsage;
    created_at: Time;
  };
  organizations: { id: string; name: string; created_at: Time };
  organization_members: {
    organization_id: string;
    user_id: string;
    role: OrganizationRole;
    created_at: Time;
  };
  organization_invitations: {
    id: string;
    organization_id: string;
    /** Lower-cased. */
    email: string;
    role: OrganizationRole;
    /** Who invited (null once that user is deleted). */
    invited_by: string | null;
    created_at: Time;
  };
  personas: {
    id: string;
    name: string;
    name_key: string;
    description: string;
    search_usage: SearchUsage;
    created_at: Time;
  };
  persona_tools: {
    id: string;
    persona_id: string;
    /** Order in the persona (assembly keeps it). */
    position: number;
    built_in_id: string | null;
    openapi_name: string | null;
    openapi_document: string | null;
    openapi_auth_secret: string | null;
    mcp_server_id: string | null;
    mcp_tool_name: string | null;
    created_at: Time;
  };
  mcp_servers: {
    id: string;
    name: string;
    transport: McpTransport;
    url: string | null;
    command: string | null;
    args_json: string;
    auth_type: McpAuthType;
    headers_secret: string | null;
    api_key_secret: string | null;
    environment_secret: string | null;
    created_at: Time;
  };
  mcp_oauth_states: { server_id: string; user_id: string; state_secret: string; updated_at: Time };
  mcp_user_credentials: { server_id: string; user_id: string; values_secret: string; updated_at: Time };
  mcp_tool_approvals: {
    server_id: string;
    tool_name: string;
    /** Hash of the tool's description and input schema at approval time. */
    definition_hash: string;
    approved_by: string;
    approved_at: Time;
  };
  mcp_oauth_pending: {
    state_hash: string;
    server_id: string;
    user_id: string;
    /** The redirect URL the authorization was started with (the code exchange must repeat it). */
    redirect_url: string;
    /** The path on this server the callback sends the browser to. */
    return_to: string;
    /** Hash of the starting browser's cookie secret: only its callback links (`null`: from before, refused). */
    browser_hash: string | null;
    created_at: Time;
    expires_at: Time;
  };
  memories: {
    id: string;
    user_id: string;
    /** The organisation the memory belongs to (its user acted in it). */
    organization_id: string;
    text: string;
    created_at: Time;
    updated_at: Time;
  };
  uploaded_files: {
    id: string;
    user_id: string;
    /** The organisation the file belongs to (its owner acted in it). */
    organization_id: string;
    name: string;
    media_type: string;
    size_bytes: number;
    /** Hex SHA-256 of the bytes. */
    sha256: string;
    created_at: Time;
  };
  uploaded_file_contents: { file_id: string; content: Uint8Array };
  settings: { key: string; value_json: string; updated_at: Time };
  chats: {
    id: string;
    user_id: string;
    /** The organisation the chat belongs to (its owner acted in it). */
    organization_id: string;
    title: string;
    /** The persona the chat was started with, when one was chosen. */
    persona_id: string | null;
    created_at: Time;
    updated_at: Time;
    activity: Generated<number>;
  };
  chat_turns: {
    chat_id: string;
    turn_index: number;
    kind: ChatTurnKind;
    status: ChatTurnStatus;
    /** Why the turn ended when it did not complete (the stop reason, the error's message). */
    end_reason: string | null;
    /** The token of the closer that ended the turn (FinishChatTurn.endToken), when it gave one. */
    end_token: string | null;
    input_json: string;
    started_at: Time;
    ended_at: Time | null;
  };
  chat_messages: {
    id: string;
    chat_id: string;
    turn_index: number | null;
    /** 0, 1, 2, … across the whole chat. */
    position: number;
    message_json: string;
    created_at: Time;
  };
  chat_packets: { chat_id: string; turn_index: number; sequence: number; packet_json: string };
  research_checkpoints: { chat_id: string; turn_index: number; checkpoint_json: string; saved_at: Time };
  connected_apps: {
    /** Ascending: the lowest id wins when two apps' patterns match one URL. */
    id: Generated<number>;
    /** The owner; null for an app of the whole organisation (every user of it sees it). */
    user_id: string | null;
    /** The organisation the app belongs to: it is seen and used there only (a sandbox run of another gets nothing). */
    organization_id: string;
    name: string;
    url_patterns_json: string;
    actions_json: string;
    headers_secret: string;
    organization_values_secret: string | null;
    enabled: Flag;
    created_at: Time;
  };
  connected_app_user_values: { app_id: number; user_id: string; values_secret: string; updated_at: Time };
  api_keys: {
    id: string;
    user_id: string;
    /** The organisation the key acts in: a request with it acts there and nowhere else. */
    organization_id: string;
    name: string;
    /** The first characters of the key (`tb_ab12…`), shown in lists. */
    prefix: string;
    key_hash: string;
    scopes_json: string;
    created_at: Time;
    last_used_at: Time | null;
    revoked_at: Time | null;
  };
  web_sessions: {
    token_hash: string;
    user_id: string;
    /** The organisation the session acts in, and only there; `null` for a session from before sessions were bound. */
    organization_id: string | null;
    /** The API key that signed the session in (`null` for one made without a key): revoking it ends the session. */
    key_id: string | null;
    scopes_json: string;
    csrf_hash: string;
    created_at: Time;
    expires_at: Time;
  };
}
