import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
import { defaultToolCallMarkupMarkers } from '../recovery/tool-call-parser-registry.ts';
import { correctiveMessageFor, DEFAULT_CORRECTIVE_MESSAGE, withoutCallMarkup } from './corrective-message.ts';

// Unreadable calls in each dialect's own form: the message names the tool the model meant.
const named: readonly { dialect: string; text: string; tool: string }[] = [
  {
    dialect: 'Harmony',
    text: '<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>{"city":"Oslo"}<|call|>',
    tool: 'get_wether',
  },
  {
    dialect: 'Hermes',
    text: '<tool_call>{"name": "weather", "arguments": "Oslo"}</tool_call>',
    tool: 'weather',
  },
  {
    dialect: 'XML invoke',
    text: '<function_calls><invoke name="forecast"></invoke></function_calls>',
    tool: 'forecast',
  },
  {
    dialect: 'Qwen3-Coder',
    text: '<tool_call>\n<function=lookup>\n</function>\n</tool_call>',
    tool: 'lookup',
  },
  {
    dialect: 'Kimi',
    text: '<|tool_call_begin|>functions.city_weather:0<|tool_call_argument_begin|>Oslo<|tool_call_end|>',
    tool: 'city_weather',
  },
  { dialect: 'GLM', text: '<tool_call>search_web<arg_key>q</arg_key></tool_call>', tool: 'search_web' },
  { dialect: 'Mistral', text: '[TOOL_CALLS]weather_now[ARGS]city=Oslo', tool: 'weather_now' },
  { dialect: 'Qwen-Agent', text: '✿FUNCTION✿: get_forecast\n✿ARGS✿: Oslo', tool: 'get_forecast' },
];

describe('correctiveMessageFor', () => {
  for (const { dialect, text, tool } of named) {
    it(`${dialect}: names the undeclared tool "${tool}" and the tools there are`, () => {
      const message = correctiveMessageFor(text, tools);
      assert.match(message, new RegExp(`tried to call "${tool}", but the call could not be read`));
      assert.match(message, new RegExp(`there is no tool named "${tool}"`));
      for (const definition of tools) assert.ok(message.includes(`"${definition.name}"`), definition.name);
    });
  }

  it('a declared tool whose arguments could not be read: named, with an example of its arguments', () => {
    const message = correctiveMessageFor(
      '<tool_call>{"name": "get_weather", "arguments": "Oslo please"}</tool_call>',
      tools,
    );
    assert.match(message, /"get_weather", but the call could not be read: its arguments are not a readable/);
    assert.match(message, /for example \{"city":/);
  });

  it('without a tool name, the default message', () => {
    assert.equal(correctiveMessageFor('<tool_call>{oops</tool_call>', tools), DEFAULT_CORRECTIVE_MESSAGE);
  });

  it('reads a name of at most 64 characters, never across a quote or a line', () => {
    const long = 'x'.repeat(200);
    assert.equal(correctiveMessageFor(`{"name": "${long}"}`, tools), DEFAULT_CORRECTIVE_MESSAGE);
  });
});

describe('withoutCallMarkup', () => {
  it('keeps the prose and drops blocks, reasoning blocks, tokens and stray tags', () => {
    assert.equal(
      withoutCallMarkup(
        '<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.nope <|constrain|>json<|message|>{}<|call|>',
        defaultToolCallMarkupMarkers,
      ),
      'Checking.',
    );
    assert.equal(
      withoutCallMarkup(
        'Let me look.\n<tool_call>{"name": "x", "arguments": 1}</tool_call><|im_end|>',
        defaultToolCallMarkupMarkers,
      ),
      'Let me look.',
    );
    assert.equal(withoutCallMarkup('Plain prose stays.', defaultToolCallMarkupMarkers), 'Plain prose stays.');
  });
});
