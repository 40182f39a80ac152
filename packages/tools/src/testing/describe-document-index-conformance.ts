import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { describeIndexedFolderSearch } from './describe-indexed-folder-search.ts';

/** What the document index conformance suite needs of a backend. */
export interface DocumentIndexUnderTest {
  /** Names the backend in the suite's titles. */
  readonly name: string;
  /** Opens a fresh, empty index. */
  openIndex(): Promise<DocumentSearchIndex>;
}

/**
 * The internal_search index tests, the same for every backend (SQLite FTS5, PostgreSQL full-text search): ranking,
 * re-indexing, incremental folder indexing, hostile query syntax, and the tool on top.
 */
export function describeDocumentIndexConformance(backend: DocumentIndexUnderTest): void {
  describe(`${backend.name} document index`, () => {
    describeIndexBasics(backend);
    describeIndexedFolderSearch(backend);
  });
}

/** Ranking, re-indexing, organisation scoping and paging: one fresh index per test. */
function describeIndexBasics(backend: DocumentIndexUnderTest): void {
  test('a word in most chunks does not drown the rare word that matters', async () => {
    const index = await backend.openIndex();
    for (let number = 0; number < 1200; number += 1) {
      await index.upsert({
        sourceId: `doc-${number}`,
        title: `Note ${number}`,
        text: `The customer wrote note ${number}.`,
      });
    }
    await index.upsert({
      sourceId: 'special',
      title: 'Escalations',
      text: 'The customer escalation path goes through the duty manager.',
    });
    const hits = await index.search('customer escalation');
    assert.equal(hits[0]?.sourceId, 'special');
    assert.equal((await index.search('customer')).length, 10, 'a query of only common words still answers');
    await index.close();
  });

  test('re-indexing a changed document replaces its chunks', async () => {
    const index = await backend.openIndex();
    assert.equal(await index.upsert({ sourceId: 'a', title: 'A', text: 'alpha beta' }), 'added');
    assert.equal(await index.upsert({ sourceId: 'a', title: 'A', text: 'alpha beta' }), 'unchanged');
    assert.equal(await index.upsert({ sourceId: 'a', title: 'A', text: 'gamma delta' }), 'updated');
    assert.equal((await index.search('alpha')).length, 0);
    assert.equal((await index.search('gamma'))[0]?.sourceId, 'a');
    assert.equal(await index.remove('a'), true);
    assert.deepEqual(await index.counts(), { documents: 0, chunks: 0 });
    await index.close();
  });

  test("one organisation's documents are never searched, found, listed, counted or removed from another", async () => {
    const index = await backend.openIndex();
    const acme = index.forOrganization({ organizationId: 'acme', uploadedBy: 'carol' });
    const globex = index.forOrganization({ organizationId: 'globex', uploadedBy: 'dave' });
    // The same source id in two organisations is two documents.
    await acme.upsert({
      sourceId: 'upload:plan.md',
      title: 'Plan',
      link: 'https://acme.example/plan',
      text: 'Acme launches the falcon rocket in May.',
    });
    await globex.upsert({ sourceId: 'upload:plan.md', title: 'Plan', text: 'Globex merges with Initech.' });
    await index.upsert({ sourceId: 'upload:own.md', title: 'Own', text: 'The default falcon manual.' });
    assert.deepEqual(
      (await globex.search('falcon rocket')).map((hit) => hit.content),
      [],
    );
    assert.deepEqual(
      (await acme.search('falcon rocket')).map((hit) => hit.content),
      ['Acme launches the falcon rocket in May.'],
    );
    assert.deepEqual(
      (await index.search('falcon')).map((hit) => hit.sourceId),
      ['upload:own.md'],
      'the index as opened is the default organisation',
    );
    assert.deepEqual(await globex.findByLink('https://acme.example/plan'), []);
    assert.equal((await acme.findByLink('https://acme.example/plan')).length, 1);
    assert.deepEqual(await globex.sourcesUnder('upload:'), ['upload:plan.md']);
    assert.notEqual(await acme.hashOf('upload:plan.md'), await globex.hashOf('upload:plan.md'));
    assert.deepEqual(await acme.counts(), { documents: 1, chunks: 1 });
    const listed = await acme.list();
    assert.deepEqual(
      listed.map((document) => [document.sourceId, document.uploadedBy, document.chunks]),
      [['upload:plan.md', 'carol', 1]],
    );
    assert.equal(await globex.remove('upload:own.md'), false, 'another organisation cannot remove it');
    assert.equal(await globex.remove('upload:plan.md'), true);
    assert.equal(
      (await acme.search('falcon'))[0]?.sourceId,
      'upload:plan.md',
      "removing Globex's left Acme's",
    );
    await acme.close();
    assert.equal((await index.counts()).documents, 1, 'closing a view leaves the index open');
    await index.close();
  });

  test('listing pages by source id', async () => {
    const index = await backend.openIndex();
    const view = index.forOrganization({ organizationId: 'pages' });
    for (const name of ['c', 'a', 'b'])
      await view.upsert({ sourceId: name, title: name, text: `text ${name}` });
    const first = await view.list({ limit: 2 });
    assert.deepEqual(
      first.map((document) => document.sourceId),
      ['a', 'b'],
    );
    const next = await view.list({ limit: 2, after: first.at(-1)?.sourceId ?? '' });
    assert.deepEqual(
      next.map((document) => document.sourceId),
      ['c'],
    );
    assert.equal(next[0]?.uploadedBy, undefined);
    await index.close();
  });
}
