import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endsAChoice } from './choice-finish-chunk.ts';

const chunk = (choices: unknown[]): string =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices });

describe('endsAChoice', () => {
  it('says a chunk with a finish reason ends a choice', () => {
    assert.equal(endsAChoice(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }])), true);
    assert.equal(
      endsAChoice(chunk([{ index: 0, delta: { content: 'end' }, finish_reason: 'length' }])),
      true,
    );
    // Written with spaces (Python's json.dumps), and a finish on the second of two choices.
    assert.equal(endsAChoice('{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}'), true);
    assert.equal(
      endsAChoice(
        chunk([
          { index: 0, delta: { content: 'a' }, finish_reason: null },
          { index: 1, delta: {}, finish_reason: 'tool_calls' },
        ]),
      ),
      true,
    );
  });

  it('says a chunk whose finish reason is null or absent does not, whatever its text says', () => {
    assert.equal(endsAChoice(chunk([{ index: 0, delta: { content: 'hi' }, finish_reason: null }])), false);
    assert.equal(endsAChoice('{"choices": [{"index": 0, "delta": {}, "finish_reason": null}]}'), false);
    assert.equal(endsAChoice(chunk([{ index: 0, delta: { content: 'hi' } }])), false);
    assert.equal(
      endsAChoice(chunk([{ index: 0, delta: { content: '"finish_reason":"stop"' }, finish_reason: null }])),
      false,
    );
    assert.equal(endsAChoice('[DONE]'), false);
  });
});
