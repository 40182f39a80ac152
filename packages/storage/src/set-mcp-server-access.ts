import { omitUndefined } from '@toolbus/spec';
import { type McpServerAccess, writeMcpServerAccess } from './mcp-server-access.ts';
import type { SettingStore, UserStore } from './storage.ts';

/** What {@link setMcpServerAccess} did: stored the record, or refused it for a user id that names nobody. */
export type SetMcpServerAccessResult =
  | { readonly ok: true; readonly access: McpServerAccess }
  | { readonly ok: false; readonly unknownUser: { readonly index: number; readonly userId: string } };

/**
 * The one way to replace a server's access record (the admin route and `toolbus mcp access` both call it): every
 * listed user must exist (the first that does not is returned with its index in `access.userIds`, and nothing is
 * stored), and the list is stored without repeats.
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
  await writeMcpServerAccess(storage.settings, serverId, stored);
  return { ok: true, access: stored };
}
