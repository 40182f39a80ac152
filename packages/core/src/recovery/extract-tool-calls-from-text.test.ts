import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';

const oslo = [{ name: 'get_weather', arguments: { city: 'Oslo' } }];
const osloAndCet = [...oslo, { name: 'get_time', arguments: { tz: 'CET' } }];

// The catalogue of textual tool-call formats models write, one entry per row (the same call everywhere).
const catalogue: ReadonlyArray<readonly [string, string, unknown]> = [
  ['1 Hermes/Qwen', '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>', oslo],
  ['2 Llama 3 python_tag', '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}', oslo],
  [
    '2b Llama 3 joined by ;',
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": "get_time", "parameters": {"tz": "CET"}}',
    osloAndCet,
  ],
  ['3 bare JSON array', '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', oslo],
  ['4 fenced JSON', 'Sure.\n```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```', oslo],
  ['5 pythonic list', "[get_weather(city='Oslo'), get_time(tz='CET')]", osloAndCet],
  ['6 Llama 4 pythonic', '<|python_start|>[get_weather(city="Oslo")]<|python_end|>', oslo],
  ['7 LFM2', '<|tool_call_start|>[get_weather(city="Oslo")]<|tool_call_end|>', oslo],
  ['8 Olmo 3', '<function_calls>get_weather(city="Oslo")\nget_time(tz="CET")</function_calls>', osloAndCet],
  ['9 Gemma 3 tool_code', '```tool_code\nget_weather(city="Oslo")\n```', oslo],
  ['10 Mistral v0.3', '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}]', oslo],
  [
    '11 Mistral [ARGS]',
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]get_time[ARGS]{"tz": "CET"}',
    osloAndCet,
  ],
  [
    '12 Qwen3-Coder',
    '<tool_call><function=get_weather><parameter=city>\nOslo\n</parameter></function></tool_call>',
    oslo,
  ],
  [
    '13 Seed-OSS',
    '<seed:tool_call><function=get_weather><parameter=city>Oslo</parameter></function></seed:tool_call>',
    oslo,
  ],
  [
    '14 GLM-4.5',
    '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
    oslo,
  ],
  [
    '15 MiniMax-M2',
    '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></minimax:tool_call>',
    oslo,
  ],
  [
    '16 Anthropic XML',
    '<function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></function_calls>',
    oslo,
  ],
  [
    '17 DeepSeek V4 DSML',
    '<｜DSML｜tool_calls><｜DSML｜invoke name="get_weather"><｜DSML｜parameter name="city" string="true">Oslo</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
    oslo,
  ],
  [
    '18 DeepSeek V3/R1',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Oslo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    oslo,
  ],
  [
    '19 DeepSeek V3.1',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    oslo,
  ],
  [
    '20 Kimi K2',
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
    oslo,
  ],
  [
    '22 Harmony',
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
    oslo,
  ],
  ['23 Granite 3', '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', oslo],
  ['24 Granite 20B FC', '<function_call> {"name": "get_weather", "arguments": {"city": "Oslo"}}', oslo],
  ['25 Nemotron-H', '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>', oslo],
  [
    '26 Command R7B',
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>',
    oslo,
  ],
  [
    '27 Command R',
    'Action: ```json\n[{"tool_name": "get_weather", "parameters": {"city": "Oslo"}}]\n```',
    oslo,
  ],
  ['28 Phi-4-mini', 'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', oslo],
  ['29 Apertus', '<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>', oslo],
  [
    '30 InternLM',
    '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|action_end|>',
    oslo,
  ],
  ['31 Jamba', '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_calls>', oslo],
  [
    '32 Hunyuan',
    '<tool_calls><tool_call>get_weather\n```json\n{"city": "Oslo"}\n```</tool_call></tool_calls>',
    oslo,
  ],
  ['33 Gemma 4', '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>', oslo],
  [
    '34 FunctionGemma',
    '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>',
    oslo,
  ],
  ['35a Functionary v3.2', '>>>get_weather\n{"city": "Oslo"}', oslo],
  ['35b Llama 3.1 function tag', '<function=get_weather>{"city": "Oslo"}</function>', oslo],
  ['36 llama.cpp generic', '{"tool_call": {"name": "get_weather", "arguments": {"city": "Oslo"}}}', oslo],
  ['37 ReAct', 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Oslo"}', oslo],
  ['38 frontier leak', 'functions.get_weather({"city": "Oslo"})', oslo],
  ['quirk: Qwen doubled braces', '{{"name": "get_weather", "arguments": {"city": "Oslo"}}}', oslo],
  [
    'quirk: Kimi tool_call_1 id',
    '<|tool_call_begin|>tool_call_1<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>',
    oslo,
  ],
  [
    'quirk: pythonic with JSON literals',
    '[get_weather(city="Oslo", metric=true, days=null)]',
    [{ name: 'get_weather', arguments: { city: 'Oslo', metric: true, days: null } }],
  ],
];

describe('extractToolCallsFromText: the catalogue of textual formats', () => {
  for (const [label, text, expected] of catalogue) {
    it(`recovers ${label}`, () => {
      assert.deepEqual(extractToolCallsFromText(text, tools), expected);
    });
  }
});

describe('extractToolCallsFromText: JSON shapes', () => {
  it('reads the four JSON call shapes and their variants', () => {
    const text = [
      '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
      '{"name": "get_weather", "args": {"city": "Bergen"}}',
      '{"name": "get_weather", "input": {"city": "Rome"}}',
      '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}',
      '{"function": {"name": "get_time", "arguments": {"tz": "UTC"}}}',
      '{"type": "function", "function": {"name": "get_time", "arguments": "{\\"tz\\":\\"CET\\"}"}}',
      '{"tool_calls": [{"id": "a", "type": "function", "function": {"name": "get_time", "arguments": "{\\"tz\\":\\"PST\\"}"}}]}',
      '{"get_weather": {"city": "Lima"}}',
      '{"tz": "JST"}',
    ].join('\nand then\n');
    assert.deepEqual(extractToolCallsFromText(text, tools), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'get_weather', arguments: { city: 'Bergen' } },
      { name: 'get_weather', arguments: { city: 'Rome' } },
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_time', arguments: { tz: 'UTC' } },
      { name: 'get_time', arguments: { tz: 'CET' } },
      { name: 'get_time', arguments: { tz: 'PST' } },
      { name: 'get_weather', arguments: { city: 'Lima' } },
      { name: 'get_time', arguments: { tz: 'JST' } },
    ]);
  });

  it('never extracts the inner arguments object a second time, adjacent or not', () => {
    const text =
      'First {"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}} then prose, ' +
      '[{"function": {"name": "get_time", "arguments": {"tz": "CET"}}}] and ' +
      '<tool_call>{"name": "get_time", "arguments": {"tz": "UTC"}}</tool_call>';
    assert.deepEqual(extractToolCallsFromText(text, tools), [
      { name: 'get_weather', arguments: { city: 'Oslo', days: 2 } },
      { name: 'get_time', arguments: { tz: 'CET' } },
      { name: 'get_time', arguments: { tz: 'UTC' } },
    ]);
  });

  it('keeps a separately written copy of the same arguments as its own bare call', () => {
    // Structural de-duplication removes the nested copy only; a second standalone object is a second call.
    const text = '{"name": "get_time", "arguments": {"tz": "CET"}}\n{"tz": "CET"}';
    assert.equal(extractToolCallsFromText(text, tools).length, 2);
  });

  it('reads bare arguments only on lines of their own, never inside a sentence', () => {
    // Data the answer talks about is not a call, even when it fits a tool's required parameters.
    for (const text of [
      '{"city": "Oslo"} is the data you asked for.',
      'The request body is {"city": "Oslo"} and it works.',
      'Answer: {"city": "Oslo"}',
    ]) {
      assert.deepEqual(extractToolCallsFromText(text, tools), [], text);
    }
    // A weak model that answers with bare arguments writes them on lines of their own, maybe after prose, a
    // closed thinking block or a fence, or before an end-of-turn token.
    for (const text of [
      '{"city": "Oslo"}',
      'Let me look.\n  {"city": "Oslo"}  \nOne moment.',
      '</think>{"city": "Oslo"}',
      '```json\n{"city": "Oslo"}\n```',
      '{"city": "Oslo"}<|eot_id|>',
    ]) {
      assert.deepEqual(extractToolCallsFromText(text, tools), oslo, text);
    }
    // A call that names its tool is a call wherever it stands.
    assert.deepEqual(
      extractToolCallsFromText(
        'I will call {"name": "get_weather", "arguments": {"city": "Oslo"}} now.',
        tools,
      ),
      oslo,
    );
  });

  it('refuses bare arguments that match two tools equally well', () => {
    assert.deepEqual(extractToolCallsFromText('{"queries": ["a", "b"]}', tools), []);
    assert.deepEqual(extractToolCallsFromText('{"queries": ["a"], "site": "example.org"}', tools), [
      { name: 'web_search', arguments: { queries: ['a'], site: 'example.org' } },
    ]);
  });

  it('drops unknown keys from bare arguments and ignores objects mostly made of unknown keys', () => {
    assert.deepEqual(extractToolCallsFromText('{"city": "Oslo", "mood": "sunny"}', tools), oslo);
    assert.deepEqual(extractToolCallsFromText('{"city": "Oslo", "a": 1, "b": 2}', tools), []);
  });

  it('ignores ordinary JSON in prose and bare arguments nested in other data', () => {
    const text =
      'The API returns {"status": "ok", "items": [1, 2, 3]} and a report ' +
      '{"report": {"city": "Oslo"}, "rows": [{"tz": "CET"}]}. Also see [1, 2] and {x}.';
    assert.deepEqual(extractToolCallsFromText(text, tools), []);
  });

  it('ignores unknown tool names and echoed tool definitions', () => {
    const text =
      '{"name": "delete_everything", "arguments": {}} ' +
      '{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}' +
      ' {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {}}}}';
    assert.deepEqual(extractToolCallsFromText(text, tools), []);
  });

  it('accepts arguments written flat beside the name, inside arrays too', () => {
    assert.deepEqual(extractToolCallsFromText('[{"name": "get_weather", "city": "Oslo"}]', tools), oslo);
    assert.deepEqual(extractToolCallsFromText('[{"name": "get_weather", "town": "Oslo"}]', tools), []);
    assert.deepEqual(
      extractToolCallsFromText('Tools: [{"name": "get_weather"}, {"name": "get_time"}]', tools),
      [],
    );
  });

  it('accepts a zero-parameter call written with its name only', () => {
    assert.deepEqual(extractToolCallsFromText('{"name": "list_files"}', tools), [
      { name: 'list_files', arguments: {} },
    ]);
  });

  it('reads values that are JSON strings and repairs a truncated final brace', () => {
    assert.deepEqual(
      extractToolCallsFromText(
        '{"name": "internal_search", "arguments": {"queries": "[\\"a\\",\\"b\\"]"}}',
        tools,
      ),
      [{ name: 'internal_search', arguments: { queries: ['a', 'b'] } }],
    );
    assert.deepEqual(
      extractToolCallsFromText('Calling: {"name": "get_weather", "arguments": {"city": "Oslo"', tools),
      oslo,
    );
  });

  it('keeps calls in order of appearance across dialects', () => {
    const text =
      '<function_calls><invoke name="get_time"><parameter name="tz">CET</parameter></invoke></function_calls>\n' +
      '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n[get_time(tz="UTC")]';
    assert.deepEqual(extractToolCallsFromText(text, tools), [
      { name: 'get_time', arguments: { tz: 'CET' } },
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'get_time', arguments: { tz: 'UTC' } },
    ]);
  });
});

describe('extractToolCallsFromText: Anthropic-style XML', () => {
  it('types values by the schema unless string="true|false" says otherwise', () => {
    const text =
      '<function_calls><invoke name="get_weather">' +
      '<parameter name="city">42</parameter><parameter name="days">3</parameter>' +
      '<parameter name="metric">true</parameter></invoke>' +
      '<invoke name="internal_search"><parameter name="queries">["a &amp; b"]</parameter>' +
      '<parameter name="limit" string="true">5</parameter></invoke></function_calls>';
    assert.deepEqual(extractToolCallsFromText(text, tools), [
      { name: 'get_weather', arguments: { city: '42', days: 3, metric: true } },
      { name: 'internal_search', arguments: { queries: ['a & b'], limit: '5' } },
    ]);
  });

  it('treats a zero-parameter invoke as a call and matches tags in any case', () => {
    assert.deepEqual(
      extractToolCallsFromText('<FUNCTION_CALLS><Invoke name="list_files"></Invoke></FUNCTION_CALLS>', tools),
      [{ name: 'list_files', arguments: {} }],
    );
  });

  it('does not read JSON inside a parameter as another call', () => {
    const text =
      '<function_calls><invoke name="internal_search"><parameter name="queries">' +
      '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</parameter></invoke></function_calls>';
    const calls = extractToolCallsFromText(text, tools);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.name, 'internal_search');
  });
});

describe('extractToolCallsFromText: hostile input', () => {
  it('returns an empty array for empty text, no tools, or non-string input', () => {
    assert.deepEqual(extractToolCallsFromText('', tools), []);
    assert.deepEqual(extractToolCallsFromText('{"name": "get_weather", "arguments": {}}', []), []);
    assert.deepEqual(extractToolCallsFromText(42 as unknown as string, tools), []);
  });

  it('survives hostile tool definitions', () => {
    const hostile = [
      null,
      { name: 42 },
      {
        get name(): string {
          throw new Error('boom');
        },
      },
    ] as unknown as typeof tools;
    assert.deepEqual(extractToolCallsFromText('{"name": "get_weather", "arguments": {}}', hostile), []);
  });

  it('removes NUL bytes and lone surrogates from recovered arguments', () => {
    const text = '{"name": "get_weather", "arguments": {"city": "Os\\u0000lo\\ud800"}}';
    assert.deepEqual(extractToolCallsFromText(text, tools), oslo);
  });

  it('finishes quickly on pathological bracket soup (linear scan)', () => {
    const soup =
      '{"a": "'.repeat(20_000) +
      '[{'.repeat(20_000) +
      '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
    const calls = extractToolCallsFromText(soup, tools);
    assert.ok(Array.isArray(calls));
  });
});
