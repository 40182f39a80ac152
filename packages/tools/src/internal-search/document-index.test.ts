import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDocumentIndex } from './document-index.ts';

test('a word in most chunks does not drown the rare word that matters', () => {
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
  const hits = index.search('customer escalation');
  assert.equal(hits[0]?.sourceId, 'special');
  assert.equal(index.search('customer').length, 10, 'a query of only common words still answers');
  index.close();
});

test('re-indexing a changed document replaces its chunks; a newer index schema is refused', () => {
  const index = openDocumentIndex({ path: ':memory:' });
  assert.equal(index.upsert({ sourceId: 'a', title: 'A', text: 'alpha beta' }), 'added');
  assert.equal(index.upsert({ sourceId: 'a', title: 'A', text: 'alpha beta' }), 'unchanged');
  assert.equal(index.upsert({ sourceId: 'a', title: 'A', text: 'gamma delta' }), 'updated');
  assert.equal(index.search('alpha').length, 0);
  assert.equal(index.search('gamma')[0]?.sourceId, 'a');
  assert.equal(index.remove('a'), true);
  assert.deepEqual(index.counts(), { documents: 0, chunks: 0 });
  index.close();
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-index-schema-'));
  const path = join(directory, 'index.db');
  openDocumentIndex({ path }).close();
  const raw = new DatabaseSync(path);
  raw.exec('PRAGMA user_version = 99');
  raw.close();
  assert.throws(() => openDocumentIndex({ path }), { code: 'index_schema_too_new' });
  rmSync(directory, { recursive: true, force: true });
});
