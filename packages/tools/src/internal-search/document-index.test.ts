import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
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

test('bulk indexing in one batch ranks the rare word first too', () => {
  const index = openDocumentIndex({ path: ':memory:' });
  index.batch(() => {
    for (let number = 0; number < 1200; number += 1) {
      index.upsert({
        sourceId: `doc-${number}`,
        title: `Note ${number}`,
        text: `The customer wrote note ${number}.`,
      });
    }
    index.upsert({
      sourceId: 'special',
      title: 'Escalations',
      text: 'The customer escalation path goes through the duty manager.',
    });
  });
  assert.equal(index.search('customer escalation')[0]?.sourceId, 'special');
  index.close();
});

test('a newer index schema is refused', () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-schema-'));
  const path = join(directory, 'index.db');
  openDocumentIndex({ path }).close();
  const raw = new DatabaseSync(path);
  raw.exec('PRAGMA user_version = 99');
  raw.close();
  assert.throws(() => openDocumentIndex({ path }), { code: 'index_schema_too_new' });
  rmSync(directory, { recursive: true, force: true });
});

test("an index of the first schema keeps its documents, now the default organisation's", () => {
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
  const index = openDocumentIndex({ path });
  assert.equal(index.search('wireguard')[0]?.sourceId, 'kb/vpn');
  assert.deepEqual(index.counts(), { documents: 1, chunks: 1 });
  assert.deepEqual(index.forOrganization({ organizationId: 'other' }).search('wireguard'), []);
  assert.equal(index.remove('kb/vpn'), true);
  assert.deepEqual(index.search('wireguard'), [], 'the chunks went with the document');
  index.close();
  rmSync(directory, { recursive: true, force: true });
});
