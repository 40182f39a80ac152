import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { defaultToolCallMarkupMarkers } from '../recovery/tool-call-parser-registry.ts';
import { splitTextAt } from '../testing/index.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

function run(filter: { process(chunk: string): string; flush(): string }, chunks: readonly string[]) {
  const outputs = chunks.map((chunk) => filter.process(chunk));
  return { outputs, text: outputs.join('') + filter.flush() };
}

/** `text` cut at `cuts` (each taken modulo the length + 1, so any integer is a position). */
const splitAt = (text: string, cuts: readonly number[]) =>
  splitTextAt(
    text,
    cuts.map((cut) => cut % (text.length + 1)),
  );

const answer = () => new AnswerStreamFilter({ tools });

/** Feeds the chunks one at a time: each must show its text at once, and the flush the rest. */
function assertStreams(steps: readonly (readonly [chunk: string, shown: string])[], flushed?: string) {
  const filter = answer();
  for (const [chunk, shown] of steps) assert.equal(filter.process(chunk), shown, JSON.stringify(chunk));
  if (flushed !== undefined) assert.equal(filter.flush(), flushed);
}

describe('AnswerStreamFilter', () => {
  it('holds a bare JSON call back and shows only the prose after it', () => {
    assertStreams(
      [
        ['{"name": "get_weather", ', ''],
        ['"arguments": {"city": "Oslo"}}', ''],
        ['\nI will check.', ''],
      ],
      'I will check.',
    );
  });

  it('streams prose at once, from the first chunk', () => {
    assertStreams(
      [
        ['The', 'The'],
        [' answer {is} [1].', ' answer {is} [1].'],
      ],
      '',
    );
  });

  it('releases JSON data that is no call as soon as it closes', () => {
    assertStreams([
      ['{"status": "ok", "items": [1, 2]', ''],
      ['} is the reply', '{"status": "ok", "items": [1, 2]} is the reply'],
    ]);
  });

  it('releases bare arguments as soon as prose follows them on their line, and holds them on a line of their own', () => {
    const data = answer();
    assert.equal(data.process('{"city": "Oslo"}'), '');
    assert.equal(data.process(' '), '');
    assert.equal(data.process('is the data.'), '{"city": "Oslo"} is the data.');
    assert.equal(data.flush(), '');
    const call = answer();
    assert.equal(call.process('{"city": "Oslo"}'), '');
    assert.equal(call.process('\nOne moment.'), '');
    assert.equal(call.flush(), 'One moment.');
  });

  it('releases a JSON start that names no tool, parameter or call key within the hold limit', () => {
    const filter = new AnswerStreamFilter({ tools, holdLimit: 40 });
    assert.equal(filter.process('{"title": "A long report", "body": "'), '');
    const more = 'x'.repeat(30);
    assert.equal(filter.process(more), `{"title": "A long report", "body": "${more}`);
  });

  it('releases braces that cannot open JSON, and fences of other languages, at once', () => {
    assert.equal(answer().process('{ let x = 1 }'), '{ let x = 1 }');
    assert.equal(answer().process('```python\nimport os\n'), '```python\nimport os\n');
    assert.equal(answer().process('```bash\nls'), '```bash\nls');
    assert.equal(answer().process('[1] First point'), '[1] First point');
    assert.equal(answer().process('[the docs](https://example.org)'), '[the docs](https://example.org)');
  });

  it('waits on a name that could be a tool, and releases it when it is not called', () => {
    assertStreams([
      ['get_', ''],
      ['weather is sunny', 'get_weather is sunny'],
    ]);
  });

  it('holds an xml fence that opens with call markup, and releases one that cannot be a call at once', () => {
    assertStreams(
      [
        ['```xml\n<tool_', ''],
        ['call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n', ''],
        ['```', ''],
      ],
      '',
    );
    assert.equal(answer().process('```xml\n<co'), '```xml\n<co', 'a tag no dialect opens with');
    const unnamed = new AnswerStreamFilter({ tools, holdLimit: 40 });
    assert.equal(unnamed.process('```xml\n<tool_call>\n{"tool": "x", "input": "'), '');
    const more = 'y'.repeat(30);
    assert.equal(
      unnamed.process(more),
      `\`\`\`xml\n<tool_call>\n{"tool": "x", "input": "${more}`,
      'no declared tool named within the hold limit',
    );
  });

  it('holds a pythonic call, also inside a tool_code fence with print()', () => {
    assert.equal(run(answer(), ['[get_weather(', 'city="Oslo")]']).text, '');
    assert.equal(run(answer(), [...'```tool_code\nprint(get_weather(city="Oslo"))\n```']).text, '');
  });

  it('recovers an unclosed block at the end, and shows one that holds no call exactly as written', () => {
    assert.equal(
      run(answer(), ['Sure. <tool_call>{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}']).text,
      'Sure. ',
    );
    assert.equal(
      run(answer(), ['Sure. <tool_call>', 'I cannot call tools here.']).text,
      'Sure. <tool_call>I cannot call tools here.',
    );
  });

  it('shows a closed block that holds no call as written, when it closes', () => {
    assertStreams(
      [
        ['Wrap it in <tool_call>', 'Wrap it in '],
        ['…</tool_call> tags.', '<tool_call>…</tool_call> tags.'],
      ],
      '',
    );
  });

  it('hides a named call on a line after prose, cut at every place', () => {
    const text = "I'll check.\n[get_weather(city='Oslo')]";
    for (let first = 0; first <= text.length; first++) {
      for (let second = first; second <= text.length; second++) {
        const chunks = [text.slice(0, first), text.slice(first, second), text.slice(second)];
        const { outputs, text: shown } = run(answer(), chunks);
        assert.equal(shown, "I'll check.\n", JSON.stringify(chunks));
        assert.doesNotMatch(outputs.join(''), /get_|\[g/, JSON.stringify(chunks));
      }
    }
  });

  it('streams the prose after a named call on a line of its own as soon as the line ends', () => {
    assertStreams(
      [
        ['One moment.\nget_weather(', 'One moment.\n'],
        ["city='Oslo')", ''],
        ['\nThen I ', 'Then I '],
        ['will answer.', 'will answer.'],
      ],
      '',
    );
    // Prose after the call on its line is what the line says without the call.
    assertStreams(
      [
        ["Sure.\n[get_weather(city='Oslo')]", 'Sure.\n'],
        [' now', ''],
        ['\nmore', 'now\nmore'],
      ],
      '',
    );
  });

  it('streams a link, a checkbox, a word, an undeclared or fenced call at a line start unchanged', () => {
    for (const text of [
      'See:\n[the docs](https://example.org) for more.',
      'Steps:\n[ ] install\n[x] configure\n',
      'Note:\nget_weather is the tool for that.\n',
      'Say:\n[other(x=1)]\n',
      'Say:\nother(x=1) is not offered.',
      // A call in a fence that the prose calls an example is one; so is one in a fence that opens the answer as
      // prose. (A fenced call after prose that says nothing of the kind is cut: answer-stream-filter-lines.)
      'For example:\n```python\nget_weather(city="Oslo")\n```\n',
      '```text\n[get_weather(city="Oslo")]\n```',
    ]) {
      for (const chunks of [[text], [...text]]) {
        const held = run(answer(), chunks);
        const plain = run(new ToolCallMarkupStreamFilter(), chunks);
        assert.equal(held.text, text);
        // Released while streaming: the end holds back no more than the markup filter does.
        assert.equal(held.outputs.join(''), plain.outputs.join(''), JSON.stringify(chunks));
      }
    }
  });

  it('without tools holds nothing back and shows markup blocks as written (no call can be in them)', () => {
    const text = '{"name": "get_weather", "arguments": {"city": "Oslo"}} <tool_call>x</tool_call>y';
    assert.equal(run(new AnswerStreamFilter({ tools: [] }), [...text]).text, text);
    assert.equal(
      run(new ToolCallMarkupStreamFilter(), [...text]).text,
      '{"name": "get_weather", "arguments": {"city": "Oslo"}} y',
    );
  });
});

// Property tests: a recovered call's markup never reaches the visible text, whatever the chunking; prose that
// does not start like a call streams exactly as the markup filter streams it (no delay, nothing changed).
const bareCalls = [
  '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
  '[{"name": "get_time", "arguments": {"tz": "CET"}}]',
  '```json\n{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}\n```',
  '```json\n{"city": "Oslo"}\n```',
  '[get_weather(city="Oslo"), get_time(tz="CET")]',
  '```tool_code\nprint(get_weather(city="Oslo"))\n```',
  "{'name': 'get_weather', 'arguments': {'city': 'Oslo', 'metric': True}}",
  '{"get_weather": {"city": "Oslo"}, "id": "call_1"}',
];
const markupCalls = [
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
  '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>',
  '<function_calls><invoke name="get_time"><parameter name="tz">CET</parameter></invoke></function_calls>',
  '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>',
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>',
  '<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"tz": "CET"}<|call|>',
  '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
];
// The named forms held at a line start after prose (bare JSON and fences there: answer-stream-filter-lines).
const namedCalls = [
  '[get_weather(city="Oslo"), get_time(tz="CET")]',
  "get_weather(city='Oslo')",
  'functions.get_weather(city="Oslo")',
  '[default_api.get_time(tz="CET")]',
];
// Markers that run to the end of the stream: only as the last thing in an answer.
const trailingCalls = [
  '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
  '[TOOL_CALLS] [{"name": "get_time", "arguments": {"tz": "CET"}}]',
  '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n',
];
const words = [
  'Sure',
  'The',
  'Note',
  'answer',
  'is',
  'JSON',
  '`<tool_call>`',
  '{braces}',
  '[1]',
  '(see)',
  'Oslo',
  'ok.',
];
const prose = fc
  .tuple(
    fc.constantFrom('Sure', 'The', 'Note'),
    fc.array(fc.constantFrom(...words, ' ', '\n', ', '), { maxLength: 12 }),
  )
  .map(([first, rest]) => `${first} ${rest.join(' ')}`);
const cuts = fc.array(fc.nat(), { maxLength: 10 });
const callText = /get_weather|get_time|"name"|<\|?tool_call|function=|invoke|TOOL_CALLS|arg_key|to=functions/;
// What is shown, without the marker the prose mentions in inline code.
const withoutMentions = (text: string) => text.replaceAll('`<tool_call>`', '');

describe('AnswerStreamFilter: property-based', () => {
  it('a bare call opening the answer never shows, and the prose after it does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...bareCalls), fc.option(prose), cuts, (call, after, positions) => {
        const text = after === null ? call : `${call}\n${after}`;
        const shown = run(answer(), splitAt(text, positions)).text;
        assert.doesNotMatch(withoutMentions(shown), callText);
        if (after !== null) assert.equal(shown, after.trim());
      }),
      { numRuns: 600 },
    );
  });

  it('a named call on a line after prose never shows, and the prose before it does', () => {
    fc.assert(
      fc.property(prose, fc.constantFrom(...namedCalls), cuts, (before, call, positions) => {
        const shown = run(answer(), splitAt(`${before}\n${call}`, positions)).text;
        assert.equal(shown, `${before}\n`);
      }),
      { numRuns: 600 },
    );
  });

  it('lines that may open a named call show the same text whatever the chunking, and as written without calls', () => {
    const pieces = [
      'Sure',
      ' ',
      '\n',
      '[',
      ']',
      '(',
      ')',
      'get_weather',
      'other',
      "city='Oslo'",
      '```',
      '{',
      '}',
    ];
    const more = [
      'functions.',
      'x=1',
      '[the docs](u)',
      'tz="CET"',
      ', ',
      '  ',
      '    ',
      '\t',
      '- ',
      '1. ',
      '> ',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces, ...more, '\n'), { maxLength: 25 }),
        cuts,
        (list, positions) => {
          const text = list.join('');
          const whole = run(answer(), [text]).text;
          assert.equal(run(answer(), splitAt(text, positions)).text, whole);
          assert.equal(run(answer(), [...text]).text, whole);
          if (extractLocatedToolCallsFromText(text, tools).length === 0) assert.equal(whole, text);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('markup calls between prose never show, and the prose around them is unchanged', () => {
    fc.assert(
      fc.property(
        prose,
        fc.constantFrom(...markupCalls),
        prose,
        fc.option(fc.constantFrom(...trailingCalls)),
        cuts,
        (before, call, after, trailing, positions) => {
          const text = `${before}${call}${after}${trailing ?? ''}`;
          const shown = run(answer(), splitAt(text, positions)).text;
          assert.doesNotMatch(withoutMentions(shown), callText);
          assert.equal(shown, `${before}${after}`);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('prose that does not start like a call streams exactly as the markup filter streams it', () => {
    // A line may open a call when, after up to three spaces (and a list marker), it starts with `[` or a letter
    // that starts a tool's name (`is` may start `internal_search(`), or (not in a list item) with `{` or a
    // backtick; and a `[` within a line of prose may open a bracketed call: held until it cannot. A `{` within a
    // line may open a JSON call (`{"name": …}`): a `{` ending a chunk waits for the next character, no more.
    const mayOpenCall = /\n {0,3}(?:[{`]|(?:(?:[-*+]|\d{1,9}[.)]) +)?[gidlwf])|\[/;
    fc.assert(
      fc.property(prose, cuts, (text, positions) => {
        const chunks = splitAt(text, positions);
        const held = run(answer(), chunks);
        const plain = run(new ToolCallMarkupStreamFilter(), chunks);
        if (!mayOpenCall.test(text)) {
          let shown = '';
          let streamed = '';
          for (const [index, output] of held.outputs.entries()) {
            shown += output;
            streamed += plain.outputs[index];
            const late = streamed.slice(shown.length);
            assert.ok(late === '' || late === '{', `at most a \`{\` late: ${JSON.stringify(late)}`);
          }
        }
        assert.equal(held.text, text);
      }),
      { numRuns: 600 },
    );
  });

  it('prose that holds markers but no call is shown byte for byte, whatever the chunking', () => {
    // The markers a model may mention in prose (not the channel tokens or reasoning blocks, which are markup
    // whatever they hold), each alone, closed around words, or unclosed as the last thing.
    const mentionable = defaultToolCallMarkupMarkers.filter((marker) => !marker.token && !marker.reasoning);
    const mentionWords = fc.array(fc.constantFrom('wrap', 'calls', 'in', 'tags', 'the', 'model', ' ', '\n'), {
      maxLength: 6,
    });
    const opening = (marker: ToolCallMarkupMarker) =>
      marker.requiresTagEnd ? `${marker.open}>` : marker.open;
    const segment = fc.oneof(
      mentionWords.map((list) => ` ${list.join(' ')} `),
      fc
        .tuple(fc.constantFrom(...mentionable), mentionWords)
        .filter(([marker]) => marker.closes.length > 0)
        .map(([marker, list]) => `${opening(marker)} ${list.join(' ')} ${marker.closes[0]}`),
    );
    const last = fc.option(
      fc
        .tuple(fc.constantFrom(...mentionable), mentionWords)
        .map(([marker, list]) => ` ${opening(marker)} ${list.join(' ')}`),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('Models', 'Note:', 'Weak models'),
        fc.array(segment, { maxLength: 5 }),
        last,
        cuts,
        (first, middle, tail, positions) => {
          const text = `${first}${middle.join('')}${tail ?? ''}`;
          assert.equal(run(answer(), splitAt(text, positions)).text, text);
        },
      ),
      { numRuns: 600 },
    );
  });
});
