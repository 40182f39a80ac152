import type { SecretBox } from './secret-box.ts';
import { type MigrationTarget, migrate, schemaVersion } from './sql/migrate.ts';
import { storageMigrations } from './sql/migrations.ts';
import { createStoreContext, type StorageDb } from './sql/store-context.ts';
import type { Storage } from './storage.ts';
import { StorageError } from './storage-error.ts';
import { createAccessStore } from './stores/access-store.ts';
import { createChatStore } from './stores/chat-store.ts';
import { createConnectedAppStore } from './stores/connected-app-store.ts';
import { createMcpServerStore } from './stores/mcp-server-store.ts';
import { createMemoryStore } from './stores/memory-store.ts';
import { createOrganizationStore } from './stores/organization-store.ts';
import type { PacketStreams } from './stores/packet-streams.ts';
import { createPersonaStore } from './stores/persona-store.ts';
import { createResearchCheckpointStore } from './stores/research-checkpoint-store.ts';
import { createSettingStore } from './stores/setting-store.ts';
import { createUploadedFileStore } from './stores/uploaded-file-store.ts';
import { createUserSecretStore } from './stores/user-secret-store.ts';
import { createUserStore } from './stores/user-store.ts';

/** What {@link openSqlStorage} takes: a database behind the query builder, of either dialect. */
export interface SqlStorageOptions extends MigrationTarget {
  readonly secrets: SecretBox;
  /** How the database keeps turns' packets, built once migrated: the one part of a store written per database (docs/postgres-storage.md). */
  readonly packetStreams: () => PacketStreams;
}

/**
 * Migrates the database, checks the secret key and builds every store over it, for both openers. Fails closed
 * (`schema_too_new`, `secret_key_mismatch`) before anything else is read or written, destroying the builder.
 */
export async function openSqlStorage(options: SqlStorageOptions): Promise<Storage> {
  const { db, secrets } = options;
  try {
    await migrate(options, storageMigrations);
    await checkSecretKey(db, secrets);
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
  const context = createStoreContext(options);
  return {
    settings: createSettingStore(context),
    researchCheckpoints: createResearchCheckpointStore(context),
    memories: createMemoryStore(context),
    files: createUploadedFileStore(context),
    users: createUserStore(context),
    organizations: createOrganizationStore(context),
    access: createAccessStore(context),
    connectedApps: createConnectedAppStore(context),
    mcpServers: createMcpServerStore(context),
    userSecrets: createUserSecretStore(context),
    personas: createPersonaStore(context),
    chats: createChatStore(context, options.packetStreams()),
    schemaVersion: () => schemaVersion(db),
    // The builder destroys its driver once: a second close waits for the first.
    close: () => db.destroy(),
  };
}

// The marker the first open of a database stores (`storage_meta.secret_key_check`), sealed with its key.
const keyCheck = { context: 'storage_meta.secret_key_check', plaintext: 'toolbus secret key check' } as const;

/** Fails with `secret_key_mismatch` unless the database's marker (stored by the first open) opens with this key. */
async function checkSecretKey(db: StorageDb, secrets: SecretBox): Promise<void> {
  await db
    .insertInto('storage_meta')
    .values({ key: 'secret_key_check', value: secrets.seal(keyCheck.plaintext, keyCheck.context) })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('storage_meta')
    .select('value')
    .where('key', '=', 'secret_key_check')
    .executeTakeFirst();
  let cause: unknown;
  try {
    if (secrets.open(row?.value ?? '', keyCheck.context) === keyCheck.plaintext) return;
  } catch (error) {
    cause = error;
  }
  throw new StorageError({
    code: 'secret_key_mismatch',
    message: 'The database was encrypted with a different secret key than the one configured.',
    cause,
  });
}
