import assert from 'node:assert/strict';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Emitter, runToolCalls } from '@toolbus/core';
import type { Packet } from '@toolbus/spec';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { indexPaths } from '../internal-search/index-paths.ts';
import { createInternalSearchTool } from '../internal-search/internal-search-tool.ts';
import { minimalPdf } from './minimal-pdf.ts';

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

    describe('internal search over an indexed folder', () => {
      let folder: string;
      let index: DocumentSearchIndex;
      before(async () => {
        folder = await mkdtemp(join(tmpdir(), 'toolbus-index-'));
        await writeFile(
          join(folder, 'refunds.md'),
          '# Refund Policy\n\nCustomers are refunded within 14 days of a return.\n',
        );
        await writeFile(
          join(folder, 'shipping.txt'),
          'Orders ship within two business days from the warehouse.',
        );
        await writeFile(
          join(folder, 'faq.html'),
          '<html><head><title>FAQ</title></head><body><h1>FAQ</h1><p>Gift cards never expire.</p></body></html>',
        );
        await writeFile(join(folder, 'plan.json'), '{"plan": {"name": "Pro", "seats": 25}}');
        await writeFile(
          join(folder, 'warranty.pdf'),
          minimalPdf(['The warranty lasts two years.'], 'Warranty'),
        );
        await writeFile(join(folder, 'broken.json'), '{not json');
        await writeFile(join(folder, '.hidden.md'), 'hidden refund secrets');
        index = await backend.openIndex();
      });
      after(async () => {
        await index.close();
        await rm(folder, { recursive: true, force: true });
      });

      test('indexes every supported type, reports unreadable files, and is incremental on re-run', async () => {
        const progress: number[] = [];
        const first = await indexPaths({
          index,
          paths: [folder],
          onProgress: ({ done }) => progress.push(done),
        });
        assert.equal(first.added, 5);
        assert.deepEqual(
          first.failed.map((failure) => failure.path.endsWith('broken.json')),
          [true],
        );
        assert.deepEqual(progress, [1, 2, 3, 4, 5, 6]);
        const second = await indexPaths({ index, paths: [folder] });
        assert.equal(second.unchanged, 5);
        assert.equal(second.added + second.updated, 0);
        await writeFile(join(folder, 'shipping.txt'), 'Orders now ship within one business day.');
        await unlink(join(folder, 'plan.json'));
        const third = await indexPaths({ index, paths: [folder] });
        assert.equal(third.updated, 1);
        assert.equal(third.removed, 1);
        assert.deepEqual((await index.counts()).documents, 4);
      });

      test('search with stemming, titles weighted, hostile query syntax harmless', async () => {
        const hits = await index.search('refunds');
        assert.equal(hits[0]?.title, 'Refund Policy');
        assert.match((await index.search('warranty years'))[0]?.content ?? '', /two years/);
        assert.equal((await index.search('seats')).length, 0, 'the deleted JSON file is gone from the index');
        assert.deepEqual(await index.search('NEAR( "x" OR title: -- *'), []);
        assert.equal((await index.search('hidden secrets')).length, 0, 'hidden files are not indexed');
      });

      test('the tool merges queries, numbers documents from the turn allocator, and streams them', async () => {
        const tool = createInternalSearchTool({ index });
        const emitter = new Emitter();
        const packets: Packet[] = [];
        const reading = (async () => {
          for await (const packet of emitter) packets.push(packet);
        })();
        const result = await runToolCalls({
          calls: [
            {
              id: 'a',
              name: 'internal_search',
              arguments: { queries: ['refund'] },
              placement: { turn: 0, tab: 0 },
            },
            {
              id: 'b',
              name: 'internal_search',
              arguments: { queries: ['gift cards', 'refund'] },
              placement: { turn: 0, tab: 1 },
            },
          ],
          tools: [tool],
          emitter,
          startCitationNumber: 3,
        });
        emitter.close();
        await reading;
        const text = result.outcomes[0]?.response.llmFacing ?? '';
        assert.match(text, /\[3\] Refund Policy\n# Refund Policy\n\nCustomers are refunded within 14 days/);
        assert.match(text, /\[4\] FAQ/);
        assert.equal(
          (text.match(/Customers are refunded/g) ?? []).length,
          1,
          'the same chunk is not given twice',
        );
        assert.deepEqual([...result.citations.keys()], [3, 4]);
        const queries = packets.find((packet) => packet.obj.type === 'search-queries');
        assert.deepEqual(queries?.obj.type === 'search-queries' && queries.obj.queries, [
          'refund',
          'gift cards',
        ]);
        assert.ok(packets.some((packet) => packet.obj.type === 'search-documents'));
        const none = await runToolCalls({
          calls: [
            {
              id: 'c',
              name: 'internal_search',
              arguments: { queries: ['zebra'] },
              placement: { turn: 0, tab: 0 },
            },
          ],
          tools: [tool],
        });
        assert.match(none.outcomes[0]?.response.llmFacing ?? '', /No documents matched "zebra"/);
      });
    });
  });
}
