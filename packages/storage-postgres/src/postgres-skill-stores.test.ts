// The skill registry and blob store conformance suites (the same ones the SQLite registry and the filesystem blob
// store run) against PostgreSQL, plus what only the shared database has: replicas seeing one set of skills and
// bundles, its own schema version, and its tables beside storage's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  builtInSkillNames,
  loadStoredSkillBundle,
  SkillBundleError,
  seedBuiltInSkills,
} from '@toolbus/skills';
import {
  describeBlobStoreConformance,
  describeSkillRegistryConformance,
  skillRecord,
} from '@toolbus/skills/testing';
import pg from 'pg';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { openPostgresSkillStores } from './postgres-skill-stores.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster.stop());

describeSkillRegistryConformance({
  name: 'PostgreSQL',
  async openRegistry() {
    const url = await cluster.createDatabase();
    const opened = [await openPostgresSkillStores({ url })];
    return {
      registry: (opened[0] as (typeof opened)[number]).registry,
      async openAnother() {
        const another = await openPostgresSkillStores({ url });
        opened.push(another);
        return another.registry;
      },
      async close() {
        for (const stores of opened) await stores.close();
      },
    };
  },
});

describeBlobStoreConformance({
  name: 'PostgreSQL',
  async openBlobStore() {
    return openPostgresSkillStores({ url: await cluster.createDatabase() });
  },
});

test('a skill stored through one replica is listed and loaded, bundle and all, through another', async () => {
  const url = await cluster.createDatabase();
  const [first, second] = await Promise.all([
    openPostgresSkillStores({ url }),
    openPostgresSkillStores({ url }),
  ]);
  const [name] = builtInSkillNames;
  assert.ok(name);
  await seedBuiltInSkills({ ...first, names: [name] });
  const [record, ...others] = await second.registry.list();
  assert.ok(record);
  assert.deepEqual([record.name, others], [name, []]);
  const loaded = await loadStoredSkillBundle({ record, blobStore: second.blobStore });
  assert.equal(loaded.sha256, record.sha256);
  assert.ok(loaded.files.some((file) => file.path === 'SKILL.md'));
  await Promise.all([first.close(), second.close()]);
});

test("the stores share storage's database: their own tables and version table, storage's untouched", async () => {
  const url = await cluster.createDatabase();
  const storage = await openPostgresStorage({ url, secretKey: Buffer.alloc(32, 1), environment: {} });
  const stores = await openPostgresSkillStores({ url });
  await stores.registry.insert(skillRecord('beside-storage'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_name LIKE '%skill%' ORDER BY table_name",
  );
  assert.deepEqual(
    rows.map((row) => row.table_name),
    ['skill_registry_migrations', 'toolbus_skill_blobs', 'toolbus_skills'],
  );
  const versions = await client.query('SELECT version FROM skill_registry_migrations');
  assert.deepEqual(versions.rows, [{ version: 1 }]);
  await client.end();
  await stores.close();
  await storage.close();
});

test('a registry written by a newer toolbus is refused', async () => {
  const url = await cluster.createDatabase();
  await (await openPostgresSkillStores({ url })).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    "INSERT INTO skill_registry_migrations (version, name, applied_at) VALUES (99, 'future', now())",
  );
  await client.end();
  await assert.rejects(openPostgresSkillStores({ url }), { code: 'schema_too_new' });
});

test('a name taken on another replica at the same moment is refused as skill_exists on one of them', async () => {
  const url = await cluster.createDatabase();
  const replicas = await Promise.all([openPostgresSkillStores({ url }), openPostgresSkillStores({ url })]);
  const results = await Promise.allSettled(
    replicas.map((stores, number) => stores.registry.insert(skillRecord('race', { id: `id-${number}` }))),
  );
  assert.deepEqual(results.map((result) => result.status).sort(), ['fulfilled', 'rejected']);
  const refused = results.find((result) => result.status === 'rejected');
  assert.ok(SkillBundleError.isInstance(refused?.reason) && refused.reason.code === 'skill_exists');
  await Promise.all(replicas.map((stores) => stores.close()));
});
