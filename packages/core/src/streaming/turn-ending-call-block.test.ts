import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

// Hunyuan A13B's template ends a call turn at `</tool_calls>` (`…</tool_calls><|eos|>`, and its prompt allows no
// other text with a call): what a model writes after that block is past its turn (`ToolCallMarkupMarker.endsTurn`).
const call = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Seattle"}}]</tool_calls>';

function streamed(
  make: () => { process(chunk: string): string; flush(): string },
  text: string,
  size: number,
) {
  const filter = make();
  let shown = '';
  for (let at = 0; at < text.length; at += size) shown += filter.process(text.slice(at, at + size));
  return shown + filter.flush();
}

describe('a call block that ends the model turn', () => {
  it('hides what the model writes after it, at any chunk size, and keeps the prose before it', () => {
    for (const size of [1, 2, 7, 64, 500]) {
      const answer = () => new AnswerStreamFilter({ tools });
      assert.equal(streamed(answer, `${call}\nThank you!`, size).trim(), '', `chunks of ${size}`);
      assert.equal(
        streamed(answer, `I will call the tool now. ${call}\nThe weather is sunny.`, size).trim(),
        'I will call the tool now.',
        `chunks of ${size}`,
      );
      // The bare markup filter hides every block without reading it: it cannot tell a call, so it goes on.
      assert.equal(
        streamed(() => new ToolCallMarkupStreamFilter(), `Hi ${call} after`, size),
        'Hi  after',
      );
    }
  });

  it('leaves the text after a block that holds no call: prose that mentions the tags is not a turn end', () => {
    const text = 'Wrap calls as <tool_calls>[…]</tool_calls> in your reply. Then go on.';
    for (const size of [1, 7, 64]) {
      assert.equal(
        streamed(() => new AnswerStreamFilter({ tools }), text, size),
        text,
        `chunks of ${size}`,
      );
    }
  });

  it('reads no call after the turn ended, and a second call inside the block still counts', () => {
    const two =
      '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"city": "Bergen"}}]</tool_calls>';
    const later = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
    const calls = extractToolCallsFromText(`${two}\nNow the next one: ${later}`, tools);
    assert.deepEqual(
      calls.map((found) => found.arguments),
      [{ city: 'Oslo' }, { city: 'Bergen' }],
    );
    // The same later call with no turn-ending block before it is made.
    assert.equal(extractToolCallsFromText(`Checking. ${later}`, tools).length, 1);
  });
});
