import type { SettingStore } from './storage.ts';

/**
 * Who may use one MCP server, as an administrator set it. The one predicate every consumer asks
 * ({@link mayUseMcpServer}, {@link offeredToSandboxes}): the egress proxy's catalogue today, chat assembly when it
 * restricts servers per user.
 */
export interface McpServerAccess {
  /** The users given access; absent: every user of the deployment (servers are deployment-wide until restricted). */
  readonly userIds?: readonly string[];
  /** Whether code in a sandbox may reach it through the egress proxy; off until an administrator turns it on. */
  readonly availableToSandboxes?: boolean;
}

/** Whether `userId` may use the server: listed, or no list at all. A request without a user may use none. */
export function mayUseMcpServer(access: McpServerAccess | undefined, userId: string | undefined): boolean {
  if (userId === undefined) return false;
  return access?.userIds === undefined || access.userIds.includes(userId);
}

/** Whether sandboxed code of `userId` is offered the server: available to sandboxes and usable by that user. */
export function offeredToSandboxes(access: McpServerAccess | undefined, userId: string | undefined): boolean {
  return access?.availableToSandboxes === true && mayUseMcpServer(access, userId);
}

/** The setting that holds one server's access (a setting, so both storage backends keep it without a migration). */
export function mcpServerAccessKey(serverId: string): string {
  return `mcp-server-access:${serverId}`;
}

/**
 * One server's access as stored. A value that is not a valid access record (edited by hand, written by a future
 * version) is read as "nobody, not in sandboxes": a doubt never widens access.
 */
export async function readMcpServerAccess(
  settings: SettingStore,
  serverId: string,
): Promise<McpServerAccess | undefined> {
  const value = (await settings.get(mcpServerAccessKey(serverId))) as
    | Record<string, unknown>
    | undefined
    | null;
  if (value === undefined || value === null) return undefined;
  const { userIds, availableToSandboxes } = value;
  const validUsers =
    userIds === undefined || (Array.isArray(userIds) && userIds.every((id) => typeof id === 'string'));
  if (
    typeof value !== 'object' ||
    !validUsers ||
    !['boolean', 'undefined'].includes(typeof availableToSandboxes)
  ) {
    return { userIds: [], availableToSandboxes: false };
  }
  return value as McpServerAccess;
}

/** Stores one server's access (replacing what was there). */
export async function writeMcpServerAccess(
  settings: SettingStore,
  serverId: string,
  access: McpServerAccess,
): Promise<void> {
  await settings.set(mcpServerAccessKey(serverId), access);
}
