import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { recoveryWork } from './recovery-work.ts';

// Pieces that make naive scanners rescan: every dialect's opening markup naming a declared tool and left open,
// strings that never close, brackets that never balance. Repeated, each is the worst case for one parser.
const hostilePieces = [
  '{',
  '[{',
  '{"a": "',
  '{"a": [',
  '"',
  '\n',
  '(',
  ' and some prose ',
  '<tool_call>',
  '<tool_call>{"name": "get_weather", "arguments": {"city": "',
  '<tool_call>get_weather<arg_key>city</arg_key><arg_value>',
  '<function=get_weather><parameter=city>',
  '<function=no_such_tool>',
  '<invoke name="get_weather"><parameter name="city">',
  '<invoke name="',
  '<parameter=x>',
  '<|python_tag|>{"name": "get_weather", "parameters": {"city": "',
  '[TOOL_CALLS]',
  '[TOOL_CALLS]get_weather{"a": "',
  '[TOOL_CALLS]get_weather[ARGS]{"city": [',
  '<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"a": "',
  '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"a": "',
  '<|channel|>commentary to=functions.get_weather <|message|>{"a": "',
  'call:get_weather{a:',
  'call:get_weather{city:<|"|>',
  '>>>get_weather{"a": "',
  'Action: get_weather\nAction Input: {"a": "',
  'Action: ```json\n[{"tool_name": "get_weather", "parameters": {"a": "',
  '<get_weather>\n<city>',
  '<get_weather><city>a</city></get_weather',
  '<functioncall> {"name": "get_weather", "arguments": \'{"a": "',
  '<json>{"name": "get_weather", "arguments": {"city": "',
  '\nget_weather(city="',
  '[get_weather(city=[',
  "{'name': 'get_weather', 'arguments': {'city': '",
  // Calls on one long line of an indented code block, and blank lines before indented calls (Markdown's examples).
  "    get_weather(city='a'), ",
  "\n\n\n\n    > get_weather(city='a')",
];

const realCall = '\n{"name": "get_weather", "arguments": {"city": "Oslo"}}';

/** The characters recovery read to extract from `text` (see `recoveryWork`), and what it found. */
function measure(text: string): { work: number; found: number } {
  const before = recoveryWork.characters;
  const found = extractToolCallsFromText(text, tools).length;
  return { work: recoveryWork.characters - before, found };
}

// A mix of pieces, repeated to about `size` characters.
function build(pieces: readonly string[], size: number): string {
  let text = '';
  for (let index = 0; text.length < size; index++) text += pieces[index % pieces.length];
  return text;
}

describe('recovery work is linear in the text', () => {
  it('on each hostile piece repeated: four times the text costs at most about four times the work', () => {
    for (const piece of hostilePieces) {
      const small = measure(build([piece], 20_000) + realCall);
      const large = measure(build([piece], 80_000) + realCall);
      assert.ok(
        large.work <= 4.5 * small.work + 1_000,
        `${JSON.stringify(piece)}: ${small.work} → ${large.work}`,
      );
      assert.ok(large.work <= 24 * 80_000, `${JSON.stringify(piece)}: ${large.work} characters read`);
    }
  });

  it('on random mixes of hostile pieces, and the real call after them is still found', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...hostilePieces), { minLength: 1, maxLength: 6 }), (pieces) => {
        const small = measure(build(pieces, 10_000) + realCall);
        const large = measure(build(pieces, 40_000) + realCall);
        assert.ok(
          large.work <= 4.5 * small.work + 1_000,
          `${pieces.join('|')}: ${small.work} → ${large.work}`,
        );
        assert.ok(large.work <= 24 * 40_000, `${pieces.join('|')}: ${large.work} characters read`);
        assert.ok(large.found >= 1, `${pieces.join('|')}: the real call was lost`);
      }),
      { numRuns: 60 },
    );
  });

  it('on nested brackets that never close: one read, not one per bracket', () => {
    for (const noise of ['{"a": '.repeat(20_000), '['.repeat(100_000), '{"a": ['.repeat(20_000)]) {
      const { work, found } = measure(noise + realCall);
      assert.ok(work <= 8 * noise.length, `${noise.slice(0, 8)}…: ${work} characters read`);
      assert.equal(found, 1);
    }
  });
});
