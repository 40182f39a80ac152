import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { temporaryDirectories } from './__fixtures__/temporary-directories.ts';
import { openStorage } from './open-storage.ts';
import { migrate, schemaVersion } from './sql/migrate.ts';
import { storageMigrations } from './sql/migrations.ts';
import { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
import { StorageError } from './storage-error.ts';

const { directory: temporaryDirectory } = temporaryDirectories('toolbus-storage-');

const noEnvironment = {};
const key = randomBytes(32).toString('base64');

function tableNames(path: string): string[] {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    return (
      database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((row) => row.name);
  } finally {
    database.close();
  }
}

const latest = storageMigrations.length;

describe('migrations', () => {
  test('a fresh database gets every table and the newest schema version', async () => {
    const path = join(temporaryDirectory(), 'fresh.db');
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.equal(await storage.schemaVersion(), latest);
    await storage.close();
    assert.deepEqual(tableNames(path), [
      'api_keys',
      'chat_messages',
      'chat_packet_log',
      'chat_packets',
      'chat_turns',
      'chats',
      'connected_app_user_values',
      'connected_apps',
      'mcp_oauth_pending',
      'mcp_oauth_states',
      'mcp_servers',
      'mcp_tool_approvals',
      'mcp_user_credentials',
      'memories',
      'organization_invitations',
      'organization_members',
      'organizations',
      'persona_tools',
      'personas',
      'research_checkpoints',
      'schema_migrations',
      'settings',
      'sqlite_sequence',
      'storage_meta',
      'uploaded_file_contents',
      'uploaded_files',
      'users',
      'web_sessions',
    ]);
  });

  test('re-opening keeps the data and applies nothing twice', async () => {
    const path = join(temporaryDirectory(), 'reopen.db');
    const first = await openStorage({ path, secretKey: key, environment: noEnvironment });
    const user = await first.users.create({ email: 'a@example.com' });
    await first.close();
    const second = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.equal((await second.users.get(user.id))?.email, 'a@example.com');
    await second.close();
    const database = new DatabaseSync(path);
    const rows = database.prepare('SELECT version, name FROM schema_migrations').all();
    database.close();
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      storageMigrations.map(({ name }, index) => ({ version: index + 1, name })),
    );
  });

  test('organisations arrive for an existing database: its users, chats and files are in the default one', async () => {
    const path = join(temporaryDirectory(), 'before-organisations.db');
    const withoutOrganisations = storageMigrations.slice(0, 4);
    const database = new DatabaseSync(path);
    await migrate(sqliteMigrationTarget(database), withoutOrganisations);
    database
      .prepare(
        "INSERT INTO users (id, email, role, created_at) VALUES ('u1', 'old@example.com', 'admin', '2026-01-01T00:00:00.000Z')",
      )
      .run();
    database
      .prepare(
        "INSERT INTO chats (id, user_id, title, created_at, updated_at, activity) VALUES ('c1', 'u1', 'Old', '2026-01-01', '2026-01-01', 1)",
      )
      .run();
    database.close();
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.deepEqual(
      (await storage.organizations.members({ userId: 'u1' })).map((member) => [
        member.organizationId,
        member.role,
      ]),
      [['default', 'admin']],
    );
    assert.equal((await storage.chats.get('c1'))?.organizationId, 'default');
    await storage.close();
  });

  test("keys made before keys were bound to organisations act in their user's first organisation", async () => {
    const path = join(temporaryDirectory(), 'before-bound-keys.db');
    const database = new DatabaseSync(path);
    await migrate(sqliteMigrationTarget(database), storageMigrations.slice(0, 6));
    for (const sql of [
      "INSERT INTO users (id, email, role, created_at) VALUES ('u1', 'acme@example.com', 'user', '2026-01-01T00:00:00.000Z')",
      "INSERT INTO users (id, email, role, created_at) VALUES ('u2', 'plain@example.com', 'user', '2026-01-01T00:00:00.000Z')",
      "INSERT INTO organizations (id, name, created_at) VALUES ('acme', 'Acme', '2026-01-01T00:00:00.000Z')",
      "DELETE FROM organization_members WHERE user_id = 'u1'",
      "INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ('acme', 'u1', 'member', '2026-01-01')",
      "INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes_json, created_at) VALUES ('k1', 'u1', 'a', 'tb_a', 'h1', '[]', '2026-01-01')",
      "INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes_json, created_at) VALUES ('k2', 'u2', 'b', 'tb_b', 'h2', '[]', '2026-01-01')",
    ])
      database.prepare(sql).run();
    database.close();
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.equal((await storage.access.getApiKey('k1'))?.organizationId, 'acme');
    assert.equal((await storage.access.getApiKey('k2'))?.organizationId, 'default');
    await storage.close();
  });

  test('later migrations run in order on an existing database, each recorded', async () => {
    const path = join(temporaryDirectory(), 'upgrade.db');
    await (await openStorage({ path, secretKey: key, environment: noEnvironment })).close();
    const migrations = [
      ...storageMigrations,
      { name: 'add a column', sql: () => 'ALTER TABLE personas ADD COLUMN color TEXT' },
      { name: 'use the column', sql: () => "UPDATE personas SET color = 'blue'" },
    ];
    const target = sqliteMigrationTarget(new DatabaseSync(path));
    const { db } = target;
    await migrate(target, migrations);
    assert.equal(await schemaVersion(db), latest + 2);
    const applied = await db.selectFrom('schema_migrations').select('name').orderBy('version').execute();
    assert.deepEqual(
      applied.slice(-2).map(({ name }) => name),
      ['add a column', 'use the column'],
    );
    await db.destroy();
  });

  test('a failing migration rolls back its own step and keeps the previous version', async () => {
    const path = join(temporaryDirectory(), 'failing.db');
    await (await openStorage({ path, secretKey: key, environment: noEnvironment })).close();
    const migrations = [
      ...storageMigrations,
      {
        name: 'half broken',
        sql: () => 'CREATE TABLE extra (x TEXT); INSERT INTO missing VALUES (1);',
      },
    ];
    const target = sqliteMigrationTarget(new DatabaseSync(path));
    await assert.rejects(migrate(target, migrations));
    await target.db.destroy();
    assert.equal(tableNames(path).includes('extra'), false);
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.equal(await storage.schemaVersion(), latest);
    await storage.close();
  });

  test('a database from a newer schema version is refused with schema_too_new', async () => {
    const path = join(temporaryDirectory(), 'newer.db');
    await (await openStorage({ path, secretKey: key, environment: noEnvironment })).close();
    const database = new DatabaseSync(path);
    database
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(latest + 1, 'from the future', new Date().toISOString());
    database.close();
    await assert.rejects(openStorage({ path, secretKey: key, environment: noEnvironment }), (error) => {
      assert.ok(StorageError.isInstance(error));
      assert.equal(error.code, 'schema_too_new');
      assert.match(error.message, new RegExp(`version ${latest + 1}`));
      return true;
    });
  });
});

describe('schema rules', () => {
  test('a persona tool row must have exactly one source, even written around the repository', async () => {
    const path = join(temporaryDirectory(), 'rules.db');
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    const persona = await storage.personas.create({ name: 'p' });
    await storage.close();
    const database = new DatabaseSync(path);
    const insert =
      database.prepare(`INSERT INTO persona_tools (id, persona_id, position, built_in_id, openapi_name,
      openapi_document, mcp_server_id, mcp_tool_name, created_at) VALUES (?, ?, 0, ?, ?, ?, NULL, NULL, 'now')`);
    // 275 is SQLITE_CONSTRAINT_CHECK.
    const checkFailed = (error: unknown) => (error as { errcode?: number }).errcode === 275;
    assert.throws(() => insert.run('two', persona.id, 'SearchTool', 'api', '{}'), checkFailed);
    assert.throws(() => insert.run('none', persona.id, null, null, null), checkFailed);
    insert.run('one', persona.id, 'SearchTool', null, null);
    database.close();
  });
});

describe('secrets at rest', () => {
  test('the raw database files never contain a stored secret in plaintext', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'secrets.db');
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    const user = await storage.users.create({ email: 'u@example.com' });
    const apiKey = 'sk-live-PLAINTEXT-API-KEY-0123456789';
    const headerValue = 'Bearer PLAINTEXT-HEADER-VALUE-abcdef';
    const accessToken = 'PLAINTEXT-OAUTH-ACCESS-TOKEN-zyx';
    const openApiToken = 'PLAINTEXT-OPENAPI-BEARER-987';
    const server = await storage.mcpServers.create({
      name: 'docs',
      endpoint: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp' },
      authType: 'api-key',
      apiKey,
      headers: { 'X-Custom-Auth': headerValue },
    });
    const environmentValue = 'PLAINTEXT-STDIO-ENV-TOKEN-555';
    const stdio = await storage.mcpServers.create({
      name: 'local',
      endpoint: {
        transport: 'stdio',
        command: 'node',
        args: ['s.js'],
        environment: { GITHUB_TOKEN: environmentValue },
      },
      authType: 'none',
    });
    await storage.userSecrets.set({
      kind: 'mcpOAuth',
      ownerId: server.id,
      userId: user.id,
      value: { tokens: { access_token: accessToken, token_type: 'Bearer' } },
    });
    const persona = await storage.personas.create({ name: 'p' });
    await storage.personas.addToolRow(persona.id, {
      kind: 'openapi',
      name: 'api',
      document: { openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} },
      auth: { type: 'bearer', token: openApiToken },
    });
    // Read back while the WAL still holds the pages, then close, so both the WAL and the main file are checked.
    assert.equal((await storage.mcpServers.get(server.id))?.apiKey, apiKey);
    const bytes = readdirSync(directory)
      .filter((name) => name.startsWith('secrets.db'))
      .map((name) => readFileSync(join(directory, name)).toString('latin1'))
      .join('');
    await storage.close();
    const closedBytes = readFileSync(path).toString('latin1');
    for (const secret of [apiKey, headerValue, accessToken, openApiToken, environmentValue]) {
      assert.equal(bytes.includes(secret), false, 'secret found while open');
      assert.equal(closedBytes.includes(secret), false, 'secret found after close');
    }
    const reopened = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.deepEqual((await reopened.mcpServers.get(server.id))?.headers, { 'X-Custom-Auth': headerValue });
    assert.deepEqual((await reopened.mcpServers.get(stdio.id))?.endpoint, {
      transport: 'stdio',
      command: 'node',
      args: ['s.js'],
      environment: { GITHUB_TOKEN: environmentValue },
    });
    assert.deepEqual(
      await reopened.userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: user.id }),
      {
        tokens: { access_token: accessToken, token_type: 'Bearer' },
      },
    );
    await reopened.close();
  });

  test('opening with another key fails with secret_key_mismatch, not garbage', async () => {
    const path = join(temporaryDirectory(), 'wrong-key.db');
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    await storage.mcpServers.create({
      name: 's',
      endpoint: { transport: 'sse', url: 'http://127.0.0.1:1/sse' },
      authType: 'api-key',
      apiKey: 'secret',
    });
    await storage.close();
    await assert.rejects(
      openStorage({ path, secretKey: randomBytes(32), environment: noEnvironment }),
      (error) => StorageError.isInstance(error) && error.code === 'secret_key_mismatch',
    );
  });

  test('a secret value altered or copied to another row fails with secret_undecryptable', async () => {
    const path = join(temporaryDirectory(), 'tampered.db');
    const storage = await openStorage({ path, secretKey: key, environment: noEnvironment });
    const endpoint = { transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp' } as const;
    const first = await storage.mcpServers.create({
      name: 'a',
      endpoint,
      authType: 'api-key',
      apiKey: 'one',
    });
    const second = await storage.mcpServers.create({
      name: 'b',
      endpoint,
      authType: 'api-key',
      apiKey: 'two',
    });
    await storage.close();
    const database = new DatabaseSync(path);
    database
      .prepare(
        'UPDATE mcp_servers SET api_key_secret = (SELECT api_key_secret FROM mcp_servers WHERE id = ?) WHERE id = ?',
      )
      .run(first.id, second.id);
    database.close();
    const reopened = await openStorage({ path, secretKey: key, environment: noEnvironment });
    assert.equal((await reopened.mcpServers.get(first.id))?.apiKey, 'one');
    await assert.rejects(
      reopened.mcpServers.get(second.id),
      (error) =>
        StorageError.isInstance(error) &&
        error.code === 'secret_undecryptable' &&
        !error.message.includes('one'),
    );
    await reopened.close();
  });

  test('TOOLBUS_SECRET_KEY is used when no key is passed, and must be 32 bytes of base64', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'env.db');
    const storage = await openStorage({ path, environment: { TOOLBUS_SECRET_KEY: key } });
    await storage.close();
    assert.equal(readdirSync(directory).includes('secret.key'), false);
    await assert.rejects(
      openStorage({ path, secretKey: key.slice(0, 20), environment: noEnvironment }),
      (error) => StorageError.isInstance(error) && error.code === 'invalid_secret_key',
    );
    // The same key through the option opens the database the environment created.
    await (await openStorage({ path, secretKey: key, environment: noEnvironment })).close();
  });

  test('without a key, a key file is created with mode 0600 and reused; a group-readable one is refused', async () => {
    const directory = temporaryDirectory();
    const path = join(directory, 'data', 'toolbus.db');
    const storage = await openStorage({ path, environment: noEnvironment });
    await storage.mcpServers.create({
      name: 's',
      endpoint: { transport: 'stdio', command: 'node', args: ['server.js'] },
      authType: 'headers',
      headers: { Authorization: 'Bearer x' },
    });
    await storage.close();
    const keyFile = join(directory, 'data', 'secret.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const reopened = await openStorage({ path, environment: noEnvironment });
    assert.deepEqual((await reopened.mcpServers.list())[0]?.headers, { Authorization: 'Bearer x' });
    await reopened.close();
    chmodSync(keyFile, 0o644);
    await assert.rejects(
      openStorage({ path, environment: noEnvironment }),
      (error) => StorageError.isInstance(error) && error.code === 'insecure_key_file',
    );
    chmodSync(keyFile, 0o600);
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`);
    await assert.rejects(
      openStorage({ path, environment: noEnvironment }),
      (error) => StorageError.isInstance(error) && error.code === 'secret_key_mismatch',
    );
  });
});

test('a file that is not a database is refused naming it, and left as it was', async () => {
  const path = join(temporaryDirectory(), 'toolbus.db');
  writeFileSync(path, 'these bytes are no SQLite database, but somebody may want them back');
  await assert.rejects(
    openStorage({ path, secretKey: key, environment: noEnvironment }),
    (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.code, 'unreadable_database');
      assert.ok(
        error.message.startsWith(`The database ${path} cannot be opened as a SQLite database`),
        error.message,
      );
      return true;
    },
  );
  assert.equal(
    readFileSync(path, 'utf8'),
    'these bytes are no SQLite database, but somebody may want them back',
  );
  await assert.rejects(
    openStorage({ path: temporaryDirectory(), secretKey: key, environment: noEnvironment }),
    {
      code: 'unreadable_database',
    },
  );
});

test('closing at once and again closes the database once; a closed storage refuses queries', async () => {
  const storage = await openStorage({ path: join(temporaryDirectory(), 'close.db'), secretKey: key });
  await Promise.all([storage.close(), storage.close()]);
  await storage.close();
  await assert.rejects(storage.users.list());
});
