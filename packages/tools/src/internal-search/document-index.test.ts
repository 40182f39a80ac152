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
