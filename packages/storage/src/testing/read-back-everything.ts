import type { Storage } from '../storage.ts';

/** What has no list in the `Storage` interface, named by the caller. */
export interface KnownKeys {
  readonly sessionHashes: readonly string[];
  readonly settingKeys: readonly string[];
  readonly invitedEmails: readonly string[];
  /** Pending MCP authorizations are read by taking them: read back last, they are gone afterwards. */
  readonly pendingStateHashes: readonly string[];
  /** Whether to read per-user MCP values (releases from 2111d5b on have them; older ones read back without). */
  readonly mcpUserCredentials?: boolean;
}

/**
 * Everything a storage holds, read through the `Storage` interface only (secrets decrypted, packets parsed), as
 * one JSON-able value: the upgrade test compares what a database of an older release reads back as after
 * migrating with what that release read back itself.
 */
export async function readBackEverything(storage: Storage, known: KnownKeys): Promise<unknown> {
  const users = await storage.users.list();
  const organizations = await storage.organizations.list();
  const servers = await storage.mcpServers.list();
  const personas = await storage.personas.list();
  const perUser = [];
  for (const user of users) {
    const memberships = await storage.organizations.members({ userId: user.id });
    const memories = [];
    for (const membership of memberships) {
      memories.push(...(await storage.memories.list(user.id, membership.organizationId)));
    }
    const files = [];
    for (const file of await storage.files.listForUser(user.id)) {
      const content = await storage.files.readContent(file.id);
      files.push({ file, content: content && Buffer.from(content).toString('base64') });
    }
    const chats = [];
    for (const chat of await storage.chats.listForUser(user.id)) {
      const turns = [];
      for (const turn of await storage.chats.listTurns(chat.id)) {
        const at = { chatId: chat.id, turn: turn.index };
        const packets = await storage.chats.listPackets({ ...at, limit: 1000 });
        turns.push({ turn, packets, checkpoint: await storage.researchCheckpoints.get(at) });
      }
      chats.push({ chat, messages: await storage.chats.listMessages(chat.id), turns });
    }
    const oauth = [];
    for (const server of servers) {
      oauth.push(await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: user.id }));
    }
    const mcpCredentials = [];
    for (const server of known.mcpUserCredentials ? servers : []) {
      mcpCredentials.push(
        await storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: server.id, userId: user.id }),
      );
    }
    const apps = await storage.connectedApps.list({ userId: user.id });
    const appValues = [];
    for (const app of apps) {
      appValues.push(
        await storage.userSecrets.get({ kind: 'connectedAppValues', ownerId: app.id, userId: user.id }),
      );
    }
    perUser.push({
      user,
      memberships,
      memories,
      files,
      chats,
      oauth,
      ...(known.mcpUserCredentials ? { mcpCredentials } : {}),
      apps,
      appValues,
      // Under the name the releases read a key's hash by (`hash`, since renamed `keyHash` after its column).
      apiKeys: (await storage.access.listApiKeys(user.id)).map(({ keyHash, ...key }) => ({
        ...key,
        hash: keyHash,
      })),
    });
  }
  const personaRows = [];
  for (const persona of personas) {
    personaRows.push({ persona, tools: await storage.personas.listToolRows(persona.id) });
  }
  const serverRows = [];
  for (const server of servers) {
    serverRows.push({ server, approvals: await storage.mcpServers.listApprovals(server.id) });
  }
  const members = [];
  for (const organization of organizations) {
    members.push(await storage.organizations.members({ organizationId: organization.id }));
  }
  const sessions = [];
  for (const hash of known.sessionHashes) sessions.push(await storage.access.getSession(hash));
  const settings: Record<string, unknown> = {};
  for (const key of known.settingKeys) settings[key] = await storage.settings.get(key);
  const invitations = [];
  for (const email of known.invitedEmails)
    invitations.push(await storage.organizations.listInvitations(email));
  const pending = [];
  for (const hash of known.pendingStateHashes) {
    pending.push(await storage.mcpServers.takePendingAuthorization(hash));
  }
  return {
    organizations,
    members,
    perUser,
    personas: personaRows,
    servers: serverRows,
    apps: await storage.connectedApps.list(),
    sessions,
    settings,
    invitations,
    pending,
  };
}
