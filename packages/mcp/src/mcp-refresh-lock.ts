/**
 * Runs `work` while no other holder of `key` runs (in this process or, for a shared lock, on any replica). An
 * OAuth token refresh runs under it: two refreshes with one refresh token would make an authorization server that
 * rotates refresh tokens revoke one of them (or the whole grant).
 */
export type McpRefreshLock = <T>(key: string, work: () => Promise<T>) => Promise<T>;

const chains = new Map<string, Promise<unknown>>();

/** An {@link McpRefreshLock} of this process: holders of one key run one after the other. */
export const inProcessMcpRefreshLock: McpRefreshLock = async <T>(
  key: string,
  work: () => Promise<T>,
): Promise<T> => {
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  chains.set(key, settled);
  try {
    return await run;
  } finally {
    // The last holder forgets the key, so the map does not grow with every user and server ever seen.
    if (chains.get(key) === settled) chains.delete(key);
  }
};

/** The lock key of one user's refresh on one MCP server (storage ids only). */
export function mcpRefreshLockKey(userId: string, serverId: string): string {
  return `mcp-oauth-refresh:${JSON.stringify([userId, serverId])}`;
}
