// A skill registry file written by release 1b61ff76 (its steps recorded in `toolbus_skills_migrations`; made by
// __fixtures__/make-skills-release-fixture.ts with that release's registry) opens with today's registry: its step
// recorded once in storage's runner's table, every row read back as the release wrote it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type TestContext, test } from 'node:test';
import { openStorage, StorageError, storageMigrations } from '@toolbus/storage';
import { releaseRecords } from './__fixtures__/skills-release-records.ts';
import type { SkillRecord } from './skill-registry.ts';
import { skillRegistryMigrations } from './skill-registry-migrations.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';

const fixture = join(import.meta.dirname, '__fixtures__', 'skills-release-1b61ff76.sqlite');

/** A copy of the release's file in a fresh folder, removed after the test. */
function releaseFile(t: TestContext): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-skills-release-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'skills.sqlite');
  copyFileSync(fixture, path);
  return path;
}

/** What a file holds, read on a (read-only) connection of the test's own. */
function contentsOf(path: string) {
  const database = new DatabaseSync(path, { readOnly: true });
  const read = (sql: string) =>
    database
      .prepare(sql)
      .all()
      .map((row) => ({ ...row }));
  const tables = read("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map(
    (row) => row.name,
  );
  const contents = {
    tables,
    skillsTable: read("SELECT sql FROM sqlite_master WHERE name = 'toolbus_skills'")[0]?.sql,
    skills: tables.includes('toolbus_skills') ? read('SELECT * FROM toolbus_skills ORDER BY name') : [],
    oldSteps: tables.includes('toolbus_skills_migrations')
      ? read('SELECT version FROM toolbus_skills_migrations ORDER BY version').map((row) => row.version)
      : undefined,
    steps: tables.includes('skill_registry_migrations')
      ? read('SELECT version, name FROM skill_registry_migrations ORDER BY version')
      : undefined,
  };
  database.close();
  return contents;
}

const stepsRecorded = skillRegistryMigrations.map(({ name }, index) => ({ version: index + 1, name }));

test("release 1b61ff76's registry file upgrades in place: its step recorded once, every row kept", async (t) => {
  const path = releaseFile(t);
  const before = contentsOf(path);
  assert.deepEqual(before.oldSteps, [1], 'the release recorded its one step in its own table');
  assert.equal(before.steps, undefined);
  assert.equal(before.skills.length, 3);

  const registry = await openSqliteSkillRegistry({ database: path });
  assert.deepEqual(await registry.list(), releaseRecords);
  assert.deepEqual(await registry.get('résumé-tidy'), releaseRecords[2]);

  const after = contentsOf(path);
  assert.deepEqual(after.skills, before.skills, 'every row as the release wrote it');
  assert.equal(after.skillsTable, before.skillsTable, 'the table as the release created it');
  assert.deepEqual(after.steps, stepsRecorded, 'its step recorded as the runner’s, not run again');
  assert.equal(after.oldSteps, undefined, 'the old record is gone');

  // Opened again: nothing recorded twice; writes work as before.
  const reopened = await openSqliteSkillRegistry({ database: path });
  assert.deepEqual(contentsOf(path).steps, stepsRecorded);
  const [pdf] = releaseRecords;
  assert.ok(pdf);
  assert.deepEqual(
    await reopened.replace({ ...pdf, id: 'pdf-2', description: 'Reads PDF files — и пишет.' }),
    pdf,
  );
  await reopened.insert({ ...pdf, id: 'pdf-3', name: 'pdf-lite' });
  assert.deepEqual(
    (await reopened.list()).map((record) => [record.name, record.id, record.description]),
    [
      ['pdf', 'pdf-2', 'Reads PDF files — и пишет.'],
      ['pdf-lite', 'pdf-3', 'Reads, fills and writes PDF files.'],
      ['quarterly-report', releaseRecords[1]?.id, releaseRecords[1]?.description],
      ['résumé-tidy', releaseRecords[2]?.id, releaseRecords[2]?.description],
    ],
  );
});

test('a release file whose old table records a step this toolbus does not know is refused, and left as it was', async (t) => {
  const path = releaseFile(t);
  const newer = new DatabaseSync(path);
  newer.exec('INSERT INTO toolbus_skills_migrations (version) VALUES (2)');
  newer.close();
  const before = contentsOf(path);

  await assert.rejects(
    openSqliteSkillRegistry({ database: path }),
    (error: unknown) => StorageError.isInstance(error) && error.code === 'schema_too_new',
  );
  assert.deepEqual(contentsOf(path), before, 'the old table and every row kept, nothing recorded');
  assert.deepEqual(before.oldSteps, [1, 2]);
});

test("a new file gets the release's table from the runner's step, recorded in the registry's own table", async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'toolbus-skills-new-')), 'skills.sqlite');
  t.after(() => rmSync(join(path, '..'), { recursive: true, force: true }));
  const registry = await openSqliteSkillRegistry({ database: path });
  await registry.insert({ ...(releaseRecords[2] as SkillRecord) });
  const created = contentsOf(path);
  assert.deepEqual(created.tables, ['skill_registry_migrations', 'toolbus_skills']);
  assert.equal(created.skillsTable, contentsOf(fixture).skillsTable, 'the released step, unchanged');
  assert.deepEqual(created.steps, stepsRecorded);

  // A file on which a newer toolbus recorded a step of its own is refused.
  const newer = new DatabaseSync(path);
  newer.exec("INSERT INTO skill_registry_migrations (version, name, applied_at) VALUES (99, 'future', '')");
  newer.close();
  await assert.rejects(
    openSqliteSkillRegistry({ database: path }),
    (error: unknown) => StorageError.isInstance(error) && error.code === 'schema_too_new',
  );
});

test("the registry shares storage's database file, each recording its own steps", async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-skills-shared-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'toolbus.db');
  const storage = await openStorage({ path, environment: {} });
  t.after(() => storage.close());
  const registry = await openSqliteSkillRegistry({ database: path });
  await registry.insert({ ...(releaseRecords[0] as SkillRecord) });
  assert.deepEqual(await registry.list(), [releaseRecords[0]]);
  const shared = new DatabaseSync(path);
  const versions = (table: string) =>
    shared
      .prepare(`SELECT version FROM ${table} ORDER BY version`)
      .all()
      .map((row) => row.version);
  assert.deepEqual(versions('skill_registry_migrations'), [1]);
  assert.deepEqual(
    versions('schema_migrations'),
    storageMigrations.map((_step, index) => index + 1),
  );
  shared.close();
  // Storage opened again on the file finds its own steps alone, as the registry does.
  await (await openStorage({ path, environment: {} })).close();
  assert.deepEqual((await (await openSqliteSkillRegistry({ database: path })).list()).length, 1);
});
