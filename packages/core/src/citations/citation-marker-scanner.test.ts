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

const doc = (id: string, citationNumber: number): CitedDocument => ({
  id,
  title: id,
  blurb: '',
  content: '',
  sourceType: 'test',
  citationNumber,
});

test('collapseCitations renumbers densely by first appearance and drops unknown numbers', () => {
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

test('collapseCitations keeps existing numbers, rewrites every marker form in its own brackets, merges duplicates', () => {
  const existing = new Map([
    [1, doc('old', 1)],
    [2, doc('shared', 2)],
  ]);
  const mapping = new Map([
    [101, doc('x', 101)],
    [102, doc('shared', 102)],
    [103, doc('y', 103)],
    [104, doc('x', 104)],
  ]);
  const text =
    'A [101]. B [102,103]. C [[103]]. D 【101】 and 【【102】】. E ［103］ ［［101, 104］］. F [101, 101, 104]. ' +
    'G [999] and [999, 103]. `x` ```\n[101]\n```';
  const result = collapseCitations(text, mapping, { existing });
  assert.equal(
    result.text,
    'A [3]. B [2, 4]. C [[4]]. D 【3】 and 【【2】】. E ［4］ ［［3］］. F [3]. G  and [4]. `x` ```\n[101]\n```',
  );
  assert.deepEqual(
    [...result.mapping].map(([number, document]) => [number, document.id]),
    [
      [1, 'old'],
      [2, 'shared'],
      [3, 'x'],
      [4, 'y'],
    ],
  );
  assert.deepEqual([...result.cited.keys()], [3, 2, 4]);
  assert.equal(result.mapping.get(3)?.citationNumber, 3);
});
