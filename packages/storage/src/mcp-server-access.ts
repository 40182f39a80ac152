import { omitUndefined } from '@toolbus/spec';
import { mcpServerSettingKey, readMcpServerSetting } from './mcp-server-setting.ts';
import type { SettingStore, UserStore } from './storage.ts';

/** Who may use one MCP server, as an administrator set it; every consumer asks {@link mayUseMcpServer}. */
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

/** One server's access as stored; an invalid record reads as "nobody, not in sandboxes": a doubt never widens it. */
export async function readMcpServerAccess(
  settings: SettingStore,
  serverId: string,
): Promise<McpServerAccess | undefined> {
  return readMcpServerSetting(
    settings,
    ['mcp-server-access', serverId],
    ({ userIds, availableToSandboxes }) =>
      (userIds === undefined || (Array.isArray(userIds) && userIds.every((id) => typeof id === 'string'))) &&
      [true, false, undefined].includes(availableToSandboxes as boolean | undefined),
    { userIds: [], availableToSandboxes: false },
  );
}

/** What {@link setMcpServerAccess} did: stored the record, or refused it for a user id that names nobody. */
export type SetMcpServerAccessResult =
  | { readonly ok: true; readonly access: McpServerAccess }
  | { readonly ok: false; readonly unknownUser: { readonly index: number; readonly userId: string } };

/**
 * Replaces a server's access record (the admin route and `toolbus mcp access` both call it), without repeats; a listed
 * user that does not exist is returned with its index, and nothing is stored.
 */
export async function setMcpServerAccess(
  storage: { readonly settings: SettingStore; readonly users: Pick<UserStore, 'get'> },
  serverId: string,
  access: McpServerAccess,
): Promise<SetMcpServerAccessResult> {
  for (const [index, userId] of (access.userIds ?? []).entries()) {
    if (!(await storage.users.get(userId))) return { ok: false, unknownUser: { index, userId } };
  }
  const stored = omitUndefined({
    userIds: access.userIds === undefined ? undefined : [...new Set(access.userIds)],
    availableToSandboxes: access.availableToSandboxes,
  });
  await storage.settings.set(mcpServerSettingKey('mcp-server-access', serverId), stored);
  return { ok: true, access: stored };
}
