import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MarkdownBlocks, splitMarkdownBlocks } from './markdown-blocks.ts';

const answer = [
  'Refunds take **14 days** [1].',
  '',
  '| Step | Days |',
  '| --- | --- |',
  '| Return | 3 |',
  '',
  '1. one',
  '',
  '2. two',
  '',
  '```python',
  'def f():',
  '',
  '    return 1',
  '```',
  '',
  'A heading',
  '===',
  '',
  'See [the policy][p].',
  '',
  '[p]: https://example.com/policy',
  '',
  'The end.',
].join('\n');

test('a streamed answer split as it grows equals the answer split at once, chunk size by chunk size', () => {
  const whole = splitMarkdownBlocks(answer);
  assert.equal(whole.blocks.join(''), answer, 'the blocks add up to the text');
  assert.ok(whole.blocks.length >= 7, `${whole.blocks.length} blocks`);
  assert.match(whole.definitions, /\[p\]: https:\/\/example\.com\/policy/);
  for (const size of [1, 3, 8, 40]) {
    let state: MarkdownBlocks | undefined;
    for (let end = size; end < answer.length + size; end += size) {
      const text = answer.slice(0, end);
      state = splitMarkdownBlocks(text, state);
      assert.deepEqual(state.blocks, splitMarkdownBlocks(text).blocks, `at ${end} in steps of ${size}`);
    }
    assert.equal(state?.definitions, whole.definitions);
  }
});

test('text that was replaced, not extended, is split afresh', () => {
  const first = splitMarkdownBlocks('one\n\ntwo\n\nthree');
  const other = splitMarkdownBlocks('four\n\nfive', first);
  assert.deepEqual(other.blocks, ['four\n\n', 'five']);
});
