import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { looksLikeToolCallPayload } from './looks-like-tool-call-payload.ts';

describe('looksLikeToolCallPayload', () => {
  it('recognises a zero-parameter invoke without any <parameter>', () => {
    assert.equal(
      looksLikeToolCallPayload('<function_calls><invoke name="list_files"></invoke></function_calls>'),
      true,
    );
    assert.equal(looksLikeToolCallPayload('<invoke name="x"></invoke>'), true);
  });

  it('recognises the markers of the other dialects', () => {
    for (const text of [
      '<tool_call>{"name": "x"}</tool_call>',
      '[TOOL_CALLS]x[ARGS]{}',
      '<|python_tag|>{"name": "x"}',
      '<function=x>{}</function>',
      '<｜tool▁calls▁begin｜>',
      '<|tool_calls_section_begin|>',
      '<|channel|>commentary to=functions.x <|message|>{}',
      '<TOOLCALL>[]</TOOLCALL>',
    ]) {
      assert.equal(looksLikeToolCallPayload(text), true, text);
    }
  });

  it('with tool definitions, also recognises markup-free calls to those tools', () => {
    const bare = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
    assert.equal(looksLikeToolCallPayload(bare), false);
    assert.equal(looksLikeToolCallPayload(bare, tools), true);
  });

  it('leaves ordinary answers alone', () => {
    for (const text of [
      '',
      'The weather in Oslo is fine.',
      'Use <function_callsomething> here',
      'Data: {"a": 1}',
    ]) {
      assert.equal(looksLikeToolCallPayload(text, tools), false, text);
    }
  });
});
