import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import fc from 'fast-check';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { looksLikeToolCallPayload } from './looks-like-tool-call-payload.ts';
import { parseToolArguments } from './parse-tool-arguments.ts';

const validCalls = [
  '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
  '<function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></function_calls>',
  '[get_weather(city="Oslo", days=3)]',
  '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
  '<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜>',
  '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>',
  '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
  '<tool_call><function=get_weather><parameter=city>Oslo</parameter></function></tool_call>',
  '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>',
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
  'Action: get_weather\nAction Input: {"city": "Oslo"}',
  '```json\n{"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}}\n```',
];

// A mutation: delete, duplicate or replace a slice, or insert noise, at random places.
const mutatedCall = fc
  .tuple(
    fc.constantFrom(...validCalls),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat({ max: 12 }),
        fc.constantFrom('delete', 'duplicate', 'insert'),
        fc.string({ maxLength: 6 }),
      ),
      { maxLength: 6 },
    ),
  )
  .map(([call, mutations]) => {
    let text = call;
    for (const [position, length, kind, noise] of mutations) {
      const start = position % (text.length + 1);
      if (kind === 'delete') text = text.slice(0, start) + text.slice(start + length);
      else if (kind === 'duplicate')
        text = text.slice(0, start) + text.slice(start, start + length) + text.slice(start);
      else text = text.slice(0, start) + noise + text.slice(start);
    }
    return text;
  });

// Every dialect's markers and JSON punctuation, shuffled: the inputs most likely to trip a parser.
const tokenSoup = fc
  .array(
    fc.constantFrom(
      '<tool_call>',
      '</tool_call>',
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      '<invoke name="get_weather">',
      '<parameter name="city">',
      '</parameter>',
      '</invoke>',
      '[TOOL_CALLS]',
      '[ARGS]',
      'get_weather',
      '(',
      ')',
      '=',
      "'",
      ':',
      ',',
      '<function=get_weather>',
      '<parameter=city>',
      '</function>',
      '<arg_key>',
      '<arg_value>',
      '<｜tool▁call▁begin｜>',
      '<｜tool▁sep｜>',
      '<|tool_call_begin|>',
      '<|tool_call_argument_begin|>',
      'to=functions.get_weather',
      '<|message|>',
      'call:get_weather{',
      '<|"|>',
      '>>>',
      'Action: get_weather\nAction Input:',
      'functions.',
      '"city"',
      '"name"',
      '"arguments"',
      'Oslo',
      ' ',
      '\n',
      '```',
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

// Tools whose names never appear in the texts and whose parameters no text uses: declaring them changes no
// call, but past 32 tools recovery stops ruling out blocks and tags by the declared names' positions.
const unnamedTools: ToolDefinition[] = Array.from({ length: 40 }, (_, index) => ({
  name: `zz_unused_${index}`,
  description: 'never called',
  parameters: { type: 'object', properties: {} },
}));

describe('ruling out markup by the declared tool names', () => {
  it('finds the same calls as reading every tag, for xml invoke tags that share one `>` or repeat', () => {
    const ungated = [...tools, ...unnamedTools];
    for (const text of [
      '<invoke <invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke>',
      '<invoke name="x" <invoke name="get_weather">',
      '<invoke name="get_weather">get_weather<invoke name="get_weather"><parameter name="city">Rome',
      'get_weather <invoke name=get_weather/> <invoke\nname="get_weather"\n>',
      '<invoke name="get_weather"> </invoke> <invoke name="get_time"><parameter name="tz">CET</parameter>',
      '<invoke name="get_time" note="get_weather"> <invoke name="get_weather">',
    ]) {
      const gated = extractToolCallsFromText(text, tools);
      assert.ok(gated.length > 0, text);
      assert.deepEqual(gated, extractToolCallsFromText(text, ungated), text);
    }
  });
});

describe('recovery never throws', () => {
  it('on shuffled dialect markers and JSON punctuation', () => {
    fc.assert(
      fc.property(tokenSoup, (text) => {
        assert.ok(Array.isArray(extractToolCallsFromText(text, tools)));
      }),
      { numRuns: 3000 },
    );
  });

  it('on random strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        assert.ok(Array.isArray(extractToolCallsFromText(text, tools)));
        assert.equal(typeof looksLikeToolCallPayload(text, tools), 'boolean');
        assert.equal(typeof parseToolArguments(text), 'object');
      }),
      { numRuns: 400 },
    );
  });

  it('on random mutations of valid calls, and every recovered call is well-formed', () => {
    fc.assert(
      fc.property(mutatedCall, (text) => {
        const calls = extractToolCallsFromText(text, tools);
        assert.ok(Array.isArray(calls));
        for (const call of calls) {
          assert.ok(tools.some((tool) => tool.name === call.name));
          assert.equal(typeof call.arguments, 'object');
          assert.ok(!Array.isArray(call.arguments));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('recovers every unmutated valid call', () => {
    for (const call of validCalls) {
      assert.deepEqual(extractToolCallsFromText(`Text before. ${call} Text after.`, tools).length, 1, call);
    }
  });

  it('on random JSON-ish values passed as tool arguments', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, encode) => {
        const parsed = parseToolArguments(encode ? JSON.stringify(value) : value);
        assert.ok(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed));
      }),
      { numRuns: 500 },
    );
  });
});
