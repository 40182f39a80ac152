/**
 * Why a persona tool row (or an injected tool) is not in an assembly:
 * - `not-allowed`: outside the request's `allowedToolIds`;
 * - `unavailable`: its `isAvailable` check said no; `availability-check-failed`: the check threw (same effect);
 * - `unknown-built-in`: no factory for the built-in id; `factory-failed`: the factory threw;
 * - `search-disabled`: search usage is `disabled`; `memory-disabled`: the user has the memory tool off;
 * - `duplicate-built-in`: the same built-in twice (the first row keeps it);
 * - `openapi-failed`: the document or its credentials were refused;
 * - `mcp-server-missing`: the row names a server that no longer exists; `mcp-server-failed`: connecting or listing
 *   failed; `mcp-auth-required`: the user must (re)connect via OAuth, or no user is known;
 * - `mcp-tool-missing`: the server does not list the tool; `mcp-not-approved`: no admin approval on record;
 *   `mcp-definition-changed`: the description or schema differs from what an admin approved (until re-approved);
 *   `mcp-tool-new`: with whole tool sets per server (`mcpWholeToolSets`), the server lists a tool the persona has
 *   no row for (it appeared after the tool set was approved), so it is not offered until the set is approved again;
 *   `mcp-schema-unsupported`: its input schema cannot be made into one providers accept (a recursive `$ref`, say):
 *   it is set aside so that it never fails the whole request;
 * - `mcp-access-denied`: an administrator limited the server to other users (`mayUseMcpServer`).
 */
export type SkipReason =
  | 'not-allowed'
  | 'unavailable'
  | 'availability-check-failed'
  | 'unknown-built-in'
  | 'factory-failed'
  | 'search-disabled'
  | 'memory-disabled'
  | 'duplicate-built-in'
  | 'openapi-failed'
  | 'mcp-server-missing'
  | 'mcp-server-failed'
  | 'mcp-auth-required'
  | 'mcp-tool-missing'
  | 'mcp-not-approved'
  | 'mcp-definition-changed'
  | 'mcp-tool-new'
  | 'mcp-schema-unsupported'
  | 'mcp-access-denied';

/**
 * The reasons a row is left out on purpose (a flag, a setting, a service that is not configured, a check on the
 * turn's own files): what nobody must be warned about. The assembly logs every other skip; the CLI stays quiet on
 * these too.
 */
export const routineSkipReasons: ReadonlySet<SkipReason> = new Set<SkipReason>([
  'not-allowed',
  'unavailable',
  'memory-disabled',
  'search-disabled',
  'unknown-built-in',
  'duplicate-built-in',
  // An administrator's decision about who may use a server: the user was not given it.
  'mcp-access-denied',
]);

/** One thing left out of an assembly, for the UI and the logs. Messages never contain secret values. */
export interface SkippedTool {
  /**
   * The persona tool row id, `injected:<built-in id>` for forced search and the memory tool, or
   * `mcp-new:<server id>:<tool name>` for a tool a server lists that has no row yet (`mcp-tool-new`).
   */
  readonly rowId: string;
  readonly source: 'built-in' | 'openapi' | 'mcp';
  readonly reason: SkipReason;
  readonly message: string;
  /** The built-in id, MCP tool name or LLM name concerned, when known. */
  readonly toolName?: string;
  readonly serverId?: string;
}

/**
 * The tools set aside because no provider would accept their input schema, by name and why: what a turn's
 * `tool-mode` packet names (as `toolbus mcp list` and the admin review do).
 */
export function setAsideTools(skipped: readonly SkippedTool[]): { name: string; reason: string }[] {
  return skipped
    .filter((item) => item.reason === 'mcp-schema-unsupported')
    .map((item) => ({ name: item.toolName ?? item.rowId, reason: item.message }));
}
