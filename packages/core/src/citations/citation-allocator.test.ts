import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchDocument } from '@toolbus/spec';
import { createCitationAllocator } from './citation-allocator.ts';

const doc = (id: string): SearchDocument => ({ id, title: id, blurb: '', content: '', sourceType: 'test' });

test('documents already cited keep their number; new ones take one contiguous block after the highest', () => {
  const allocator = createCitationAllocator({ known: [{ ...doc('a'), citationNumber: 3 }] });
  const first = allocator.assign([doc('b'), doc('a'), doc('c'), doc('b')]);
  assert.deepEqual(
    first.map((document) => document.citationNumber),
    [4, 3, 5, 4],
  );
  assert.equal(allocator.nextNumber, 6);
  const view = allocator.view();
  assert.deepEqual(
    view.assign([doc('c'), doc('d')]).map((document) => document.citationNumber),
    [5, 6],
  );
  assert.deepEqual([...view.assigned.keys()], [5, 6]);
  view.fence();
  assert.throws(() => view.assign([doc('e')]), { code: 'citation_allocator_fenced' });
  assert.deepEqual([...allocator.mapping.keys()].sort(), [3, 4, 5, 6]);
});

test('startAt leaves room for numbers used before tools ran (project files)', () => {
  const allocator = createCitationAllocator({ startAt: 8 });
  assert.equal(allocator.assign([doc('x')])[0]?.citationNumber, 8);
});
