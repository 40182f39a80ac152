import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonValueCompletion } from './json-value-completion.ts';

describe('JsonValueCompletion', () => {
  it('completes exactly when the top-level value closes, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.nat(), { maxLength: 8 }),
        (value, cuts) => {
          const text = JSON.stringify(value);
          const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const completion = new JsonValueCompletion();
          let previous = 0;
          for (const position of [...positions, text.length]) {
            const done = completion.push(text.slice(previous, position));
            assert.equal(done, position === text.length);
            previous = position;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never completes scalars, double-encoded strings or unbalanced text', () => {
    for (const text of ['"{\\"a\\":1}"', '42', '{"a": "}"', 'call({"a":1})']) {
      assert.equal(new JsonValueCompletion().push(text), false, text);
    }
    assert.equal(new JsonValueCompletion().push('  \n{"a":[1,{"b":"]}"}]}'), true);
  });
});
