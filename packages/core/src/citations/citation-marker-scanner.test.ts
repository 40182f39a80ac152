import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CitedDocument } from '@toolbus/spec';
import fc from 'fast-check';
import { CitationMarkerScanner } from './citation-marker-scanner.ts';
import { collapseCitations } from './collapse-citations.ts';

const answer =
  'Revenue grew [1]. Costs fell [2, 3] and [[4]]; see 【5】 and ［6］.\n```\nx[7]\n```\nAlso [x] and [8';

test('finds every marker form, skipping code fences and non-markers', () => {
  const scanner = new CitationMarkerScanner();
  assert.deepEqual(scanner.process(answer), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(scanner.process(']'), [8]);
});

test('finds the same markers whatever the chunking', () => {
  const expected = new CitationMarkerScanner().process(answer);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: answer.length }), { maxLength: 12 }), (cuts) => {
      const points = [...new Set(cuts)].sort((left, right) => left - right);
      const scanner = new CitationMarkerScanner();
      const found: number[] = [];
      let previous = 0;
      for (const point of [...points, answer.length]) {
        found.push(...scanner.process(answer.slice(previous, point)));
        previous = point;
      }
      assert.deepEqual(found, expected);
    }),
  );
});

test('collapseCitations renumbers densely by first appearance and drops unknown numbers', () => {
  const doc = (id: string, citationNumber: number): CitedDocument => ({
    id,
    title: id,
    blurb: '',
    content: '',
    sourceType: 'test',
    citationNumber,
  });
  const mapping = new Map([
    [103, doc('b', 103)],
    [7, doc('a', 7)],
    [207, doc('a', 207)],
  ]);
  const result = collapseCitations('First [103], then [7, 207] and [999].', mapping);
  assert.equal(result.text, 'First [1], then [2] and .');
  assert.deepEqual(
    [...result.mapping].map(([number, document]) => [number, document.id]),
    [
      [1, 'b'],
      [2, 'a'],
    ],
  );
});
