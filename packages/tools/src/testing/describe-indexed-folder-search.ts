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
import type { DocumentIndexUnderTest } from './describe-document-index-conformance.ts';
import { minimalPdf } from './minimal-pdf.ts';

/**
 * The folder half of the document index conformance suite: a folder of every supported file type indexed into
 * the backend, re-indexed incrementally, searched, and searched through the internal_search tool.
 */
export function describeIndexedFolderSearch(backend: DocumentIndexUnderTest): void {
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
}
