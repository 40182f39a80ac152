import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { describeDocumentIndexConformance } from '../testing/describe-document-index-conformance.ts';
import { openDocumentIndex } from './document-index.ts';

// The document index conformance suite (the same one the PostgreSQL index runs) against the embedded SQLite index.
describeDocumentIndexConformance({
  name: 'SQLite',
  openIndex: async () => openDocumentIndex({ path: ':memory:' }),
});

test('two indexes on one file write at once, as `toolbus index` beside a running server does', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-two-'));
  const path = join(directory, 'index.db');
  const [first, second] = [await openDocumentIndex({ path }), await openDocumentIndex({ path })];
  try {
    // Interleaved transactions of two connections: one waits for the other's write lock, never "database is locked".
    const outcomes = await Promise.all(
      [first, second].flatMap((index, which) =>
        Array.from({ length: 40 }, (_, number) =>
          index.upsert({
            sourceId: `doc-${which}-${number}`,
            title: `Note ${number}`,
            text: `Paragraph ${number} of ${which}.`,
          }),
        ),
      ),
    );
    assert.deepEqual(new Set(outcomes), new Set(['added']));
    assert.deepEqual(await second.counts(), { documents: 80, chunks: 80 });
    assert.equal((await first.search('paragraph', { limit: 200 })).length, 80);
  } finally {
    await first.close();
    await second.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test("a write waits while another connection holds the file's write lock, rather than failing", async () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-locked-'));
  const path = join(directory, 'index.db');
  const index = await openDocumentIndex({ path });
  // Another process's transaction (a `toolbus index` run) holding the lock for a moment.
  const other = new DatabaseSync(path);
  other.exec('BEGIN IMMEDIATE');
  const released = new Promise<void>((resolve) =>
    setTimeout(() => {
      other.exec('COMMIT');
      resolve();
    }, 200),
  );
  try {
    const outcome = await index.upsert({
      sourceId: 'kb/vpn',
      title: 'VPN',
      text: 'Import the wireguard profile.',
    });
    assert.equal(outcome, 'added');
    assert.equal((await index.search('wireguard'))[0]?.sourceId, 'kb/vpn');
  } finally {
    await released;
    other.close();
    await index.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('an index written by a newer toolbus is refused, and left as it was', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-schema-'));
  const path = join(directory, 'index.db');
  await (await openDocumentIndex({ path })).close();
  const raw = new DatabaseSync(path);
  raw.exec("INSERT INTO search_index_migrations (version, name, applied_at) VALUES (99, 'future', '')");
  raw.close();
  await assert.rejects(openDocumentIndex({ path }), { code: 'schema_too_new' });
  // A file of the releases that counted steps in user_version, with more than this toolbus knows.
  const counted = join(directory, 'counted.db');
  const old = new DatabaseSync(counted);
  old.exec('PRAGMA user_version = 3');
  old.close();
  await assert.rejects(openDocumentIndex({ path: counted }), { code: 'schema_too_new' });
  const after = new DatabaseSync(counted);
  assert.deepEqual({ ...after.prepare('PRAGMA user_version').get() }, { user_version: 3 });
  after.close();
  rmSync(directory, { recursive: true, force: true });
});

test('a file that is not a database is refused naming it as the search index, and left as it was', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-garbage-'));
  const path = join(directory, 'index.db');
  writeFileSync(path, 'garbage garbage garbage');
  await assert.rejects(openDocumentIndex({ path }), (error: unknown) => {
    assert.equal((error as { code?: string }).code, 'unreadable_database');
    assert.match((error as Error).message, new RegExp(`^The search index ${path} cannot be opened`));
    return true;
  });
  assert.equal(readFileSync(path, 'utf8'), 'garbage garbage garbage');
  rmSync(directory, { recursive: true, force: true });
});

test("an index of the first schema keeps its documents, now the default organisation's", async () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-v1-'));
  const path = join(directory, 'index.db');
  const raw = new DatabaseSync(path);
  raw.exec(`
    CREATE TABLE documents (id INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, link TEXT,
      content_hash TEXT NOT NULL, updated_at TEXT, indexed_at TEXT NOT NULL);
    CREATE INDEX documents_link ON documents(link);
    CREATE TABLE chunks (id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, content_hash TEXT NOT NULL);
    CREATE INDEX chunks_document ON chunks(document_id);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(title, content, content='chunks', content_rowid='id',
      tokenize='porter unicode61 remove_diacritics 2');
    CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
    END;
    CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
    END;
    INSERT INTO documents VALUES (1, 'kb/vpn', 'VPN', NULL, 'h', NULL, '2026-01-01T00:00:00.000Z');
    INSERT INTO chunks VALUES (1, 1, 0, 'VPN', 'Import the wireguard profile.', 'c');
    PRAGMA user_version = 1;
  `);
  raw.close();
  const index = await openDocumentIndex({ path });
  assert.equal((await index.search('wireguard'))[0]?.sourceId, 'kb/vpn');
  assert.deepEqual(await index.counts(), { documents: 1, chunks: 1 });
  assert.deepEqual(await index.forOrganization({ organizationId: 'other' }).search('wireguard'), []);
  await index
    .forOrganization({ organizationId: 'other' })
    .upsert({ sourceId: 'kb/vpn', title: 'VPN', text: 'x' });
  assert.deepEqual(
    await index.counts(),
    { documents: 1, chunks: 1 },
    'the same source id in another organisation',
  );
  assert.equal(await index.remove('kb/vpn'), true);
  assert.deepEqual(await index.search('wireguard'), [], 'the chunks went with the document');
  await index.close();
  const reopened = new DatabaseSync(path);
  assert.deepEqual(
    reopened
      .prepare('SELECT version FROM search_index_migrations ORDER BY version')
      .all()
      .map((row) => row.version),
    [1, 2],
    'its counted step is recorded, and the second step applied once',
  );
  assert.deepEqual({ ...reopened.prepare('PRAGMA user_version').get() }, { user_version: 0 });
  reopened.close();
  rmSync(directory, { recursive: true, force: true });
});
