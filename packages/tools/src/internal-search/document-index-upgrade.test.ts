// A search index file written by release 3bf9957 (its steps counted in PRAGMA user_version; made by
// __fixtures__/make-index-release-fixture.ts with that release's code) opens with today's index, keeps every row,
// and reads and writes as before.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDocumentIndex } from './document-index.ts';

const rowsOf = (path: string) => {
  const database = new DatabaseSync(path);
  const read = (sql: string) =>
    database
      .prepare(sql)
      .all()
      .map((row) => ({ ...row }));
  const rows = {
    documents: read('SELECT * FROM documents ORDER BY id'),
    chunks: read('SELECT * FROM chunks ORDER BY id'),
    steps: read('SELECT version FROM search_index_migrations ORDER BY version').map((row) => row.version),
  };
  database.close();
  return rows;
};

test("release 3bf9957's index file upgrades in place: every row kept, both organisations' views read as before", async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-release-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'index.db');
  copyFileSync(join(import.meta.dirname, '__fixtures__', 'index-release-3bf9957.db'), path);
  const release = new DatabaseSync(path);
  const before = {
    documents: release
      .prepare('SELECT * FROM documents ORDER BY id')
      .all()
      .map((row) => ({ ...row })),
    chunks: release
      .prepare('SELECT * FROM chunks ORDER BY id')
      .all()
      .map((row) => ({ ...row })),
    counted: (release.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
  };
  release.close();
  assert.equal(before.counted, 2, 'the release counted its two steps');
  assert.equal(before.documents.length, 3);

  const index = await openDocumentIndex({ path });
  assert.deepEqual(
    (await index.search('wireguard')).map((hit) => [hit.sourceId, hit.title, hit.link, hit.updatedAt]),
    [['file:///kb/vpn.md', 'VPN setup', 'file:///kb/vpn.md', '2026-11-30T09:00:00.000Z']],
  );
  assert.deepEqual(await index.counts(), { documents: 2, chunks: 2 });
  const research = index.forOrganization({ organizationId: 'research' });
  assert.deepEqual(
    (await research.list()).map((info) => [info.sourceId, info.title, info.uploadedBy]),
    [['file:///kb/vpn.md', 'Lab VPN', 'user-7']],
  );
  assert.equal((await research.search('wireguard gateway'))[0]?.title, 'Lab VPN');
  assert.equal((await index.findByLink('file:///kb/vpn.md'))[0]?.title, 'VPN setup');
  assert.equal(await index.hashOf('file:///kb/holidays.md'), before.documents[1]?.content_hash);
  await index.close();

  const after = rowsOf(path);
  assert.deepEqual(after.documents, before.documents, 'every document row as the release wrote it');
  assert.deepEqual(after.chunks, before.chunks, 'every chunk row as the release wrote it');
  assert.deepEqual(after.steps, [1, 2], 'its counted steps recorded as the runner’s, none run again');

  // Writes after the upgrade, on a reopened file: a changed document replaces its chunks, a removed one goes.
  const reopened = await openDocumentIndex({ path });
  assert.equal(
    await reopened.upsert({
      sourceId: 'file:///kb/holidays.md',
      title: 'Holidays',
      text: 'Closed in August.',
    }),
    'updated',
  );
  assert.equal((await reopened.search('august'))[0]?.sourceId, 'file:///kb/holidays.md');
  assert.deepEqual(await reopened.search('office public'), []);
  assert.equal(await reopened.remove('file:///kb/vpn.md'), true);
  assert.equal((await reopened.forOrganization({ organizationId: 'research' }).counts()).documents, 1);
  await reopened.close();
});
