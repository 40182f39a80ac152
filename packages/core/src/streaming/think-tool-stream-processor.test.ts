import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cutText } from '../testing/scripted-turn.ts';
import { createThinkToolStreamProcessor } from './think-tool-stream-processor.ts';

function run(fragments: readonly string[]): string {
  const processor = createThinkToolStreamProcessor();
  let output = '';
  for (const fragment of fragments) output += processor.process(fragment);
  return output + processor.flush();
}

describe('createThinkToolStreamProcessor', () => {
  it('streams the reasoning as it arrives and never emits the closing "}', () => {
    const processor = createThinkToolStreamProcessor();
    assert.equal(processor.process('{"reason'), '');
    assert.equal(processor.process('ing": "First'), 'First');
    assert.equal(processor.process(', check'), ', check');
    assert.equal(processor.process('."}'), '.');
    assert.equal(processor.flush(), '');
  });

  it('accepts the key with or without spaces and skips other keys first', () => {
    assert.equal(run(['{ "other": {"a": ["}", 1]}, "n": 5, "reasoning" : "ok"}']), 'ok');
    assert.equal(run(['{"reasoning":"ok"}']), 'ok');
  });

  it('decodes escapes split across fragments correctly', () => {
    assert.equal(run(['{"reasoning": "a\\', 'nb']), 'a\nb');
    assert.equal(run(['{"reasoning": "a\\\\', 'nb"}']), 'a\\nb');
    assert.equal(run(['{"reasoning": "say \\', '"hi\\"', '"}']), 'say "hi"');
    assert.equal(run(['{"reasoning": "caf\\u00', 'e9 \\ud83d', '\\ude00"}']), 'café 😀');
  });

  it('drops lone surrogates and NUL', () => {
    assert.equal(run(['{"reasoning": "a\\ud800b\\u0000c"}']), 'abc');
  });

  it('gives the decoded string for any fragmentation', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (reasoning, cuts) => {
          const json = JSON.stringify({ reasoning });
          const fragments = cutText(json, cuts);
          assert.equal(run(fragments), reasoning.replaceAll('\u0000', ''));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
