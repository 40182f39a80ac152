// The registry beside another connection on its file (`toolbus skills add` while `toolbus serve` writes): a write
// waits for the other's lock instead of failing with "database is locked".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type TestContext, test } from 'node:test';
import type { SkillRecord } from './skill-registry.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';

function registryFile(t: TestContext): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-skills-busy-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, 'skills.sqlite');
}

const record = (name: string): SkillRecord => ({
  id: `id-${name}`,
  name,
  description: `The ${name} skill.`,
  frontMatter: { name, description: `The ${name} skill.`, extra: {} },
  sha256: 'ab'.repeat(32),
  blobKey: `skills/${name}.zip`,
  totalBytes: 10,
  fileCount: 1,
  isBuiltIn: false,
  findings: [],
  findingsAccepted: false,
  createdAt: '2026-12-07T00:00:00.000Z',
});

/** Another connection holding the file's write lock until `release` is called. */
function holdWriteLock(path: string) {
  const other = new DatabaseSync(path);
  other.exec('BEGIN IMMEDIATE');
  other.exec(
    `INSERT INTO toolbus_skills SELECT 'id-held', 'held', 'd', '{}', 's', 'k', 1, 1, 0, '[]', 0, 't'`,
  );
  return {
    release: () => {
      other.exec('COMMIT');
      other.close();
    },
  };
}

/** Whether `promise` has settled by the time the event loop has turned a few times. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

test('a write waits for another connection to release the file, then lands', async (t) => {
  const path = registryFile(t);
  const registry = await openSqliteSkillRegistry({ database: path });
  await registry.insert(record('first'));
  const lock = holdWriteLock(path);
  const writes = [
    registry.insert(record('second')),
    registry.replace({ ...record('first'), description: 'Replaced.' }),
    registry.delete('second-never-there'),
  ];
  // Still waiting while the other connection holds the lock (the registry before failed at once).
  assert.equal(await settledSoon(Promise.race(writes)), false);
  lock.release();
  const [, replaced, deleted] = await Promise.all(writes);
  assert.equal((replaced as SkillRecord | undefined)?.description, 'The first skill.');
  assert.equal(deleted, undefined);
  const names = (await registry.list()).map((skill) => [skill.name, skill.description]);
  assert.deepEqual(names, [
    ['first', 'Replaced.'],
    ['held', 'd'],
    ['second', 'The second skill.'],
  ]);
});

test('a taken name is still refused as skill_exists, not retried', async (t) => {
  const registry = await openSqliteSkillRegistry({ database: registryFile(t) });
  await registry.insert(record('only'));
  await assert.rejects(registry.insert(record('only')), { code: 'skill_exists' });
  assert.equal((await registry.list()).length, 1);
});
