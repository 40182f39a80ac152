// Writes the upgrade test's fixtures with the storage code of a release before storage was written once (8a78985,
// 2111d5b: every store written per database): a SQLite database and a PostgreSQL database holding a row in every
// table, stored as they are (the SQLite file itself, `sqlite.db`; the PostgreSQL database as `pg_dump -Fc`,
// `postgres.dump`), and what that release's `Storage` read back from each once reopened. The fixtures of 8a78985 and
// 2111d5b were written by this script's form before (e27dd35), which dumped both databases as SQL;
// sql-dumps-to-artifacts.ts loaded those dumps into the file and the database they describe, with the same rows,
// and stored them as above. Run it in a tree of that
// commit (with this repository's node_modules, and its @toolbus links pointing into that tree):
//   git archive RELEASE | tar -x -C /tmp/release, then copy this file and
//   ../../../storage/src/testing/read-back-everything.ts to the same places there, and run
//   node --conditions=development packages/storage-postgres/src/__fixtures__/make-release-fixtures.ts OUT_DIR \
//     [with-mcp-user-credentials]   (the second argument for releases from 2111d5b on)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type Storage } from '@toolbus/storage';
import { readBackEverything } from '../../../storage/src/testing/read-back-everything.ts';
import { openPostgresStorage } from '../open-postgres-storage.ts';
import { startTestPostgres } from '../testing/start-test-postgres.ts';

const out = process.argv[2] ?? join(import.meta.dirname, 'release-8a78985');
mkdirSync(out, { recursive: true });
const secretKey = Buffer.alloc(32, 7).toString('base64');
const known = {
  sessionHashes: ['session-hash-1', 'session-hash-2', 'session-hash-3'],
  settingKeys: ['theme', 'limits'],
  invitedEmails: ['new@example.com', 'user@example.com'],
  pendingStateHashes: ['pending-1'],
  mcpUserCredentials: process.argv[3] === 'with-mcp-user-credentials',
};

async function populate(storage: Storage): Promise<void> {
  const acme = await storage.organizations.create({ name: 'Acme' });
  const admin = await storage.users.create({ email: 'admin@example.com', name: 'Ada', role: 'admin' });
  const user = await storage.users.create({
    email: 'user@example.com',
    organizationId: acme.id,
    settings: { memoryToolEnabled: true, searchUsage: 'disabled' },
  });
  await storage.organizations.setMember({ organizationId: acme.id, userId: admin.id, role: 'admin' });
  const stdio = await storage.mcpServers.create({
    name: 'local',
    endpoint: { transport: 'stdio', command: 'mcp-server', args: ['--flag', 'x'], environment: { TOKEN: 's3cret-env' } },
    authType: 'none',
  });
  const remote = await storage.mcpServers.create({
    name: 'remote',
    endpoint: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp' },
    authType: 'api-key',
    headers: { 'X-Team': 'blue' },
    apiKey: 's3cret-api-key',
  });
  await storage.mcpServers.saveOAuthState({ serverId: remote.id, userId: user.id, state: { tokens: { access: 's3cret-token' } } });
  // Per-user MCP values exist from 2111d5b on.
  if ('mcpUserCredentials' in storage) {
    await storage.mcpUserCredentials.set({ serverId: remote.id, userId: user.id, values: { api_key: 's3cret-user-key' } });
    await storage.mcpUserCredentials.set({ serverId: stdio.id, userId: admin.id, values: { token: 's3cret-admin', team: 'red' } });
  }
  await storage.mcpServers.approveTool({ serverId: remote.id, toolName: 'search', definitionHash: 'abc', approvedBy: admin.id });
  await storage.mcpServers.savePendingAuthorization({
    stateHash: 'pending-1',
    serverId: remote.id,
    userId: user.id,
    redirectUrl: 'https://toolbus.example.com/callback',
    returnTo: '/chats',
    browserHash: 'browser-hash-1',
    expiresAt: '2099-01-01T00:00:00.000Z',
  });
  const persona = await storage.personas.create({ name: 'Researcher', description: 'finds things', searchUsage: 'enabled' });
  await storage.personas.create({ name: 'Plain' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'web_search' });
  await storage.personas.addToolRow(persona.id, {
    kind: 'openapi',
    name: 'Pets',
    document: { openapi: '3.0.0', info: { title: 'Pets', version: '1' }, paths: {} },
    auth: { type: 'bearer', token: 's3cret-bearer' } as never,
  });
  await storage.personas.addToolRow(persona.id, { kind: 'mcp', serverId: stdio.id, toolName: 'read' });
  await storage.memories.add({ userId: user.id, organizationId: acme.id, text: 'likes tea' });
  await storage.memories.add({ userId: admin.id, text: 'prefers short answers' });
  await storage.files.put({ userId: user.id, organizationId: acme.id, name: 'a.txt', mediaType: 'text/plain', content: new Uint8Array([1, 2, 3, 255]) });
  await storage.settings.set('theme', { dark: true });
  await storage.settings.set('limits', 'plain string');
  const chat = await storage.chats.create({ userId: user.id, title: 'First', personaId: persona.id, organizationId: acme.id });
  await storage.chats.appendMessages(chat.id, [{ role: 'system', content: 'be brief' }]);
  const done = await storage.chats.startTurn({ chatId: chat.id, input: [{ role: 'user', content: 'hi' }] });
  await storage.chats.appendPackets({ chatId: chat.id, turn: done.index, packets: [{ type: 'text', text: 'he' }, { type: 'text', text: 'llo' }] });
  await storage.chats.finishTurn({
    chatId: chat.id,
    turn: done.index,
    status: 'completed',
    messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }],
  });
  const running = await storage.chats.startTurn({ chatId: chat.id, kind: 'research', input: [{ role: 'user', content: 'dig' }] });
  await storage.chats.appendPacketBatches([{ chatId: chat.id, turn: running.index, packets: [{ type: 'step', n: 1 }] }]);
  await storage.researchCheckpoints.save({ chatId: chat.id, turn: running.index, checkpoint: { step: 1, notes: ['a'] } });
  await storage.chats.create({ userId: admin.id });
  const orgApp = await storage.connectedApps.create({
    userId: null,
    name: 'GitHub',
    urlPatterns: ['https://api.github.com/*'],
    actions: [{ name: 'read', method: 'GET', pathPattern: '/repos/.*', policy: 'ALWAYS' }],
    headers: { Authorization: 'Bearer {{user.token}}' },
    organizationValues: { org: 's3cret-org-value' },
  });
  await storage.connectedApps.create({
    userId: null,
    organizationId: acme.id,
    name: 'Acme CRM',
    urlPatterns: ['https://crm.acme.example/*'],
    headers: { 'X-Api-Key': '{{organization.key}}' },
    organizationValues: { key: 's3cret-acme-value' },
  });
  await storage.connectedApps.create({ userId: user.id, organizationId: acme.id, name: 'Mine', urlPatterns: ['https://x.example.com/*'], headers: {}, enabled: false });
  await storage.connectedApps.setUserValues({ appId: orgApp.id, userId: user.id, values: { token: 's3cret-user-value' } });
  const key = await storage.access.createApiKey({ userId: user.id, organizationId: acme.id, name: 'ci', prefix: 'tb_ab', hash: 'key-hash-1', scopes: ['chat'] });
  await storage.access.touchApiKey(key.id);
  const revoked = await storage.access.createApiKey({ userId: admin.id, name: 'old', prefix: 'tb_cd', hash: 'key-hash-2', scopes: [] });
  await storage.access.revokeApiKey(revoked.id);
  await storage.access.createSession({ tokenHash: 'session-hash-1', userId: user.id, organizationId: acme.id, keyId: key.id, scopes: ['chat'], csrfHash: 'csrf-1', expiresAt: '2099-01-01T00:00:00.000Z' });
  await storage.access.createSession({ tokenHash: 'session-hash-2', userId: admin.id, scopes: ['chat', 'admin', 'keys'], csrfHash: 'csrf-2', expiresAt: '2099-01-01T00:00:00.000Z' });
  await storage.access.createSession({ tokenHash: 'session-hash-3', userId: user.id, scopes: [], csrfHash: 'csrf-3', expiresAt: '2098-01-01T00:00:00.000Z' });
  await storage.organizations.invite({ organizationId: acme.id, email: 'New@Example.com', role: 'member', invitedBy: admin.id });
  await storage.organizations.invite({ organizationId: 'default', email: 'new@example.com', role: 'admin', invitedBy: null });
  await storage.organizations.invite({ organizationId: acme.id, email: 'user@example.com', role: 'admin', invitedBy: admin.id });
}

// Each database is stored first, then reopened by the release and read back (reading pending authorizations takes
// them): the expected values are what the release itself reads from the very rows stored.
const directory = mkdtempSync(join(tmpdir(), 'toolbus-fixtures-'));
const sqlitePath = join(directory, 'toolbus.db');
const sqlite = await openStorage({ path: sqlitePath, secretKey, environment: {} });
await populate(sqlite);
// The running turn's packets stay in the running-packet log: close without ending it.
await sqlite.close();
// Closing checkpointed the WAL into the file: the file alone is the database.
if (existsSync(`${sqlitePath}-wal`)) throw new Error('The SQLite file still has a WAL after closing.');
copyFileSync(sqlitePath, join(out, 'sqlite.db'));
const reopened = await openStorage({ path: sqlitePath, secretKey, environment: {} });
writeFileSync(join(out, 'expected-sqlite.json'), `${JSON.stringify(await readBackEverything(reopened, known), null, 1)}\n`);
await reopened.close();

const cluster = await startTestPostgres();
try {
  const url = await cluster.createDatabase();
  const postgres = await openPostgresStorage({ url, secretKey, environment: {} });
  await populate(postgres);
  await postgres.close();
  // The release's startTestPostgres does not name its programs' directory: the newest Debian PostgreSQL's.
  const bin = execFileSync('bash', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1']).toString().trim();
  const dump = join(out, 'postgres.dump');
  execFileSync(join(bin, 'pg_dump'), ['-Fc', '--no-owner', '--no-privileges', '-f', dump, url]);
  const again = await openPostgresStorage({ url, secretKey, environment: {} });
  writeFileSync(join(out, 'expected-postgres.json'), `${JSON.stringify(await readBackEverything(again, known), null, 1)}\n`);
  await again.close();
} finally {
  await cluster.stop();
}
writeFileSync(join(out, 'secret-key.txt'), `${secretKey}\n`);
