import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
import { pythonicToolCallParser } from '../recovery/dialects/pythonic-tool-call-parser.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import { cutText } from '../testing/index.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

// Lines after prose, as Markdown reads them: a call indented by up to three spaces or in a list item is held and
// cut out (recovery reads it); one in an indented code block or a block quote is an example, shown as written
// (recovery does not read it). Once a held line's call is cut out, the text after it streams again.

function run(filter: { process(chunk: string): string; flush(): string }, chunks: readonly string[]) {
  const outputs = chunks.map((chunk) => filter.process(chunk));
  return { outputs, text: outputs.join('') + filter.flush() };
}

const answer = () => new AnswerStreamFilter({ tools });

/** `text` cut in three at every pair of places: every chunking into up to three pieces. */
function* everyCut(text: string): Generator<string[]> {
  for (let first = 0; first <= text.length; first++)
    for (let second = first; second <= text.length; second++)
      yield [text.slice(0, first), text.slice(first, second), text.slice(second)];
}

/** Whatever the chunking, `text` shows as `shown`, and no chunk's output shows a call's text. */
function assertShownAtEveryCut(text: string, shown: string) {
  for (const chunks of everyCut(text)) {
    const result = run(answer(), chunks);
    assert.equal(result.text, shown, JSON.stringify(chunks));
    assert.doesNotMatch(result.outputs.join(''), /get_|\[g/, JSON.stringify(chunks));
  }
}

describe('AnswerStreamFilter: lines after prose, as Markdown reads them', () => {
  it('hides a call indented by one to three spaces, cut at every place (the indent shows)', () => {
    assertShownAtEveryCut("I'll check.\n  [get_weather(city='Oslo')]", "I'll check.\n  ");
    assertShownAtEveryCut("I'll check.\n   get_weather(city='Oslo')", "I'll check.\n   ");
    // The line ends where the call was: the next line does not join the indent.
    assertShownAtEveryCut("I'll check.\n [get_time(tz='CET')]\nDone.", "I'll check.\n \nDone.");
  });

  it('hides a bracketed or namespaced call in a list item, cut at every place (the marker shows)', () => {
    // The marker streams as it comes (a list is held nowhere): an item that held only a call is left empty.
    assertShownAtEveryCut("Plan:\n- [get_weather(city='Oslo')]", 'Plan:\n- ');
    assertShownAtEveryCut("Plan:\n12. [get_time(tz='CET')]\nThen more.", 'Plan:\n12. \nThen more.');
    assertShownAtEveryCut("Plan:\n* functions.get_time(tz='CET')\nok", 'Plan:\n* \nok');
    // At the answer's start too.
    assertShownAtEveryCut("* [get_weather(city='Oslo')]\nok", '* \nok');
    assertShownAtEveryCut("\n1. functions.get_time(tz='CET')", '\n1. ');
  });

  it('streams the text after a cut call again, a later call line held in turn', () => {
    const text = "Sure.\n[get_weather(city='Oslo')]\nThen\n  get_time(tz='CET')\nend.";
    assertShownAtEveryCut(text, 'Sure.\nThen\n  \nend.');
    const filter = answer();
    assert.equal(filter.process("Sure.\n[get_weather(city='Oslo')]\nThe weather "), 'Sure.\nThe weather ');
    assert.equal(filter.process('is next.'), 'is next.', 'streamed at once, not at the end');
    // Prose after the call on its line makes it a mention: released at once, before the line ends.
    const mention = answer();
    assert.equal(mention.process("Note:\nget_weather(city='Oslo')"), 'Note:\n');
    assert.equal(mention.process(' is how'), "get_weather(city='Oslo') is how");
  });

  it('streams an indented code block, a block quote, a list of prose, links and checkboxes unchanged', () => {
    for (const text of [
      "Example:\n\n    get_weather(city='Oslo')\n",
      "Example:\n    [get_weather(city='Oslo')]\nas a list.",
      "Example:\n\tget_weather(city='Oslo')\n",
      "Example:\n  \t[get_weather(city='Oslo')]\n",
      "Quote:\n> get_weather(city='Oslo')\n",
      "REPL:\n>>> get_weather(city='Oslo')\n",
      '- install\n- get_weather is the tool\n1. first\n2) second\n* [the docs](https://example.org)\n',
      '- [ ] install\n- [x] configure\n+ [1] note\n---\n**bold**\n',
      "Say:\n- get_weather(city='Oslo')\n- [other(x=1)]\n",
      "For example:\n  ```python\n  get_weather(city='Oslo')\n  ```\n",
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of [[text], [...text]]) {
        const held = run(answer(), chunks);
        const plain = run(new ToolCallMarkupStreamFilter(), chunks);
        assert.equal(held.text, text);
        // Released while streaming: the end holds back no more than the markup filter does.
        assert.equal(held.outputs.join(''), plain.outputs.join(''), JSON.stringify(chunks));
      }
    }
  });
});

// A bare JSON call or a fenced call on a line after prose, as weak models write them: recovery reads it (unless
// the prose around a fence calls it an example), so it is held from its line start and cut out; what recovery
// does not read is released unchanged as soon as it cannot be a call.
describe('AnswerStreamFilter: JSON and fenced calls after prose', () => {
  const weather = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';

  it('hides a bare JSON call on its own line after prose, cut at every place', () => {
    assertShownAtEveryCut(`Let me look that up.\n${weather}`, 'Let me look that up.\n');
    // Llama 3's `parameters`, and prose after the call's line, which streams again.
    assertShownAtEveryCut(
      'Let me look that up.\n{"name": "get_time", "parameters": {"tz": "CET"}}\nDone.',
      'Let me look that up.\nDone.',
    );
    assertShownAtEveryCut('Sure.\n[{"name": "get_time", "arguments": {"tz": "CET"}}]', 'Sure.\n');
  });

  it('hides a fenced call after prose, cut at every place, and shows the prose after it', () => {
    assertShownAtEveryCut(`Let me look that up.\n\`\`\`json\n${weather}\n\`\`\``, 'Let me look that up.\n');
    assertShownAtEveryCut(`Sure.\n\`\`\`\n${weather}\n\`\`\`\nOne moment.`, 'Sure.\nOne moment.');
    assertShownAtEveryCut("Sure.\n```python\nget_weather(city='Oslo')\n```", 'Sure.\n');
    assertShownAtEveryCut(
      'Sure.\n```xml\n<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>\n```',
      'Sure.\n',
    );
    // In a list item (its marker shows), and in a fence opened within a line (its opener was shown).
    assertShownAtEveryCut(`Plan:\n- \`\`\`json\n${weather}\n\`\`\``, 'Plan:\n- ');
    assertShownAtEveryCut(`Here: \`\`\`json\n${weather}\n\`\`\`\nok`, 'Here: ```json\n```\nok');
  });

  it('streams the prose after a fenced call once the framing window after its close is seen', () => {
    const filter = answer();
    assert.equal(filter.process(`Checking.\n\`\`\`json\n${weather}\n\`\`\`\n`), 'Checking.\n');
    const after = `${'The forecast follows. '.repeat(20)}\n`;
    // The prose right after a fence's close may still call it an example: it waits for the window (400).
    assert.equal(filter.process(after.slice(0, 300)), '');
    assert.equal(filter.process(after.slice(300)), after, 'streamed before the end');
    assert.equal(filter.process('More.'), 'More.');
    assert.equal(filter.flush(), '');
  });

  it('shows a fence that the prose after it calls an example unchanged', () => {
    const text = `Sure.\n\`\`\`json\n${weather}\n\`\`\`\nThat is just an example, not an actual call.`;
    assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0);
    for (const chunks of [[text], [...text]]) assert.equal(run(answer(), chunks).text, text);
  });

  it('releases ordinary code, a JSON example and JSON data at the first character that rules a call out', () => {
    // A fence of another language: at its language's second letter (`t` may start `tool_code`).
    const code = answer();
    assert.equal(code.process('Code:\n```t'), 'Code:\n');
    assert.equal(code.process('s\nconst x = 1;'), '```ts\nconst x = 1;');
    // Python that calls no declared tool: at its first letter that no declared tool's name goes on with.
    const python = answer();
    assert.equal(python.process('Run:\n```python\ni'), 'Run:\n', '`i` may start `internal_search`');
    assert.equal(python.process('mport os'), '```python\nimport os');
    // A JSON call the prose names as an example, and JSON that is no call: as soon as the value closes.
    for (const [before, value] of [
      ['For example:\n```json\n', weather],
      ['Result:\n', '{"status": "ok", "items": [1, 2]}'],
      ['Result:\n```json\n', '{"status": "ok"}'],
    ] as const) {
      const filter = answer();
      assert.equal(filter.process(before + value.slice(0, -1)), before.slice(0, before.indexOf('\n') + 1));
      assert.equal(filter.process(value.slice(-1)), before.slice(before.indexOf('\n') + 1) + value);
      assert.equal(filter.flush(), '');
    }
  });

  it('streams ordinary code, JSON examples and data after prose unchanged, whatever the chunking', () => {
    for (const text of [
      'Code:\n```ts\nconst x = { a: [1] };\n```\nDone.',
      'Run:\n```python\nprint(1)\n```\n',
      'Inline `code` and\n`more code` here.\n``not a fence``',
      `For example:\n\`\`\`json\n${weather}\n\`\`\`\n`,
      'Result:\n{"status": "ok", "items": [1, 2]}\n[{"id": 1}]\n{not json}\n',
      'Config:\n```json\n{\n  "debug": true\n}\n```',
      // A JSON call in a block quote or an indented code block after prose is an example (as a named call is).
      `Quote:\n> ${weather}\n`,
      // A call further down a fence, after other code, is code too.
      `Here:\n\`\`\`json\n// the call\n${weather}\n\`\`\``,
      "Sure.\n```python\nimport weather\nget_weather(city='Oslo')\n```",
      `Example:\n\n    ${weather}\n`,
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of everyCut(text))
        assert.equal(run(answer(), chunks).text, text, JSON.stringify(chunks));
    }
  });
});

// A bracketed call within a line of prose (`I'll check. [get_weather(…)]`), as recovery reads it: held from its
// `[` (a chunk that ends on `[` or `[` and a tool name's first letters holds them), cut out when recovery reads
// it; a link, a citation, an undeclared name or a call in inline code or a quote is released as written.
describe('AnswerStreamFilter: a bracketed call within a line of prose', () => {
  it('hides it, cut at every place, and shows the prose around it', () => {
    assertShownAtEveryCut("I'll check. [get_weather(city='Oslo')]", "I'll check. ");
    assertShownAtEveryCut("I'll check. [get_weather(city='Oslo')]\nDone.", "I'll check. \nDone.");
    assertShownAtEveryCut("- Then [get_time(tz='CET')]\nok", '- Then \nok');
  });

  it('streams links, citations, undeclared names, inline code and quotes unchanged, whatever the chunking', () => {
    for (const text of [
      'See [the docs](https://example.org) and [1], [2].\nok [other(x=1)] fine',
      'The tool [get_weather](https://example.org/get_weather) is documented [here].',
      "Use `[get_weather(city='Oslo')]` to call it.",
      "> a quote [get_weather(city='Oslo')]\n",
      'I would call get_weather(city=\'Oslo\') later, or {braces} and {"status": "ok"} data.',
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of everyCut(text))
        assert.equal(run(answer(), chunks).text, text, JSON.stringify(chunks));
    }
  });

  it('holds a `[` and the first letters of a tool name only until the text rules a call out', () => {
    const filter = answer();
    assert.equal(filter.process('See [ge'), 'See ');
    assert.equal(filter.process('nerally] and'), '[generally] and');
    assert.equal(filter.process(' [1] too'), ' [1] too');
  });

  it('finds the `[` itself when no marker starts with one, and sets a `[` ending a chunk aside', () => {
    // Only the pythonic dialect: the markup filter does not search for `[`, so the line finder does.
    const pythonic = () => new AnswerStreamFilter({ tools, parsers: [pythonicToolCallParser] });
    const filter = pythonic();
    assert.equal(filter.process('See ['), 'See ');
    assert.equal(filter.process('1] and ['), '[1] and ');
    assert.equal(filter.process('the docs](x)'), '[the docs](x)');
    for (const [text, shown] of [
      ["I'll check. [get_weather(city='Oslo')]\nDone.", "I'll check. \nDone."],
      ['See [1] and [the docs](https://example.org) [', 'See [1] and [the docs](https://example.org) ['],
    ] as const)
      for (const chunks of everyCut(text))
        assert.equal(run(pythonic(), chunks).text, shown, JSON.stringify(chunks));
  });
});

// A JSON call within a line of prose (`Let me check. {"name": …}`), as recovery reads it (issue 37): held from its
// `{` (or the `[` of a `[{…}]` list) only while the text can still open a call of a declared tool, cut out when
// recovery reads it, released at the first character that rules a call out.
describe('AnswerStreamFilter: a JSON call within a line of prose', () => {
  const weather = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
  const shapes: readonly (readonly [text: string, shown: string])[] = [
    [`Let me check. ${weather}`, 'Let me check. '],
    ['Let me check. {"name": "get_time", "parameters": {"tz": "CET"}}\nDone.', 'Let me check. \nDone.'],
    ['Ok. {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}', 'Ok. '],
    ['Ok. [{"name": "get_time", "arguments": {"tz": "CET"}}] then', 'Ok. then'],
    [`Checking ${weather} and more.\nok`, 'Checking and more.\nok'],
    [`- Then ${weather}\nok`, '- Then \nok'],
    // A blank after the brace, a pretty-printed call, the arguments or an id before the name.
    ['Let me check. { "name": "get_weather", "arguments": {"city": "Paris"}}', 'Let me check. '],
    [
      'Checking: {\n  "name": "get_weather",\n  "arguments": {"city": "Paris"}\n}\nDone.',
      'Checking: \nDone.',
    ],
    ['Ok: {"arguments": {"city": "Paris"}, "name": "get_weather"} then', 'Ok: then'],
    ['Ok: {"id": "c1", "name": "get_time", "arguments": {"tz": "CET"}}\nok', 'Ok: \nok'],
    // A Python dict, as some small models write it.
    ["Let me call it: {'name': 'get_weather', 'arguments': {'city': 'Paris'}}", 'Let me call it: '],
  ];

  it('hides it, cut at every place, and shows the prose around it', () => {
    for (const [text, shown] of shapes) {
      assert.ok(extractLocatedToolCallsFromText(text, tools).length > 0, `recovery reads a call: ${text}`);
      assertShownAtEveryCut(text, shown);
    }
  });

  it('shows no piece of it in any chunk, at 1, 7 and 64 characters', () => {
    for (const [text, shown] of shapes)
      for (const size of [1, 7, 64]) {
        const chunks = text.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
        const result = run(answer(), chunks);
        assert.equal(result.text, shown, `${size}: ${text}`);
        for (const output of result.outputs) assert.doesNotMatch(output, /[{}]|get_/);
      }
  });

  it('holds a `{` only while the text can still open a call of a declared tool', () => {
    const filter = answer();
    assert.equal(filter.process('Set {'), 'Set ');
    assert.equal(filter.process('a} and {"c'), '{a} and ', '`"c` may open `"calls"`');
    assert.equal(filter.process('ity": 1}'), '{"city": 1}', 'a key no call opens with: released at once');
    assert.equal(filter.process(' and {"name": "get_w'), ' and ');
    assert.equal(filter.process('idget"} ok'), '{"name": "get_widget"} ok', 'an undeclared name: released');
    assert.equal(filter.process(' {'), ' ');
    assert.equal(filter.process(' x} done'), '{ x} done', 'a blank after the brace: no call is held');
    assert.equal(filter.flush(), '');
  });

  it('streams braces of prose, JSON data, undeclared names, inline code and quotes unchanged, any chunking', () => {
    for (const text of [
      'Use {x} here, a set {1, 2} and { "a": 1 } too.',
      'Data {"input": "x", "count": 2} and {\n  "title": "x"\n} and { a }.\nDone.',
      "A dict {'a': 1, 'name': 'x'} and {'title': 'get'} here, don't {'",
      'The body is {"city": "Paris"} and {"name": "other", "arguments": {}} here, {"note": "hi"} too.',
      'Use `{"name": "get_weather", "arguments": {"city": "Paris"}}` to call it.',
      'Note:\n> as in {"name": "get_weather", "arguments": {"city": "Paris"}}\n',
      'Note:\n\n    code {"name": "get_weather", "arguments": {"city": "Paris"}}\n',
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of everyCut(text))
        assert.equal(run(answer(), chunks).text, text, JSON.stringify(chunks));
    }
  });

  it('hides markup that opens right after `{"`, where the search meets the marker, not a brace', () => {
    // `{"` then `<`: the one search's match is the marker's `<`; read as a brace, a chunk ending within the
    // marker was passed over as prose and the marker shown.
    for (const [open, close] of [
      ['<tool_', 'call>'],
      ['[TOOL_', 'CALLS]'],
    ]) {
      const call = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
      const chunks = ['Here it is.', ` Data {"${open}`, `${close}${call}`, ' done'];
      const { text } = run(answer(), chunks);
      assert.doesNotMatch(text, /tool_call|TOOL_CALLS|get_weather/i, open);
      assert.ok(text.startsWith('Here it is. Data {"'), text);
    }
  });

  it('hides a namespaced call within a line, cut at every place; prose that names the namespace streams', () => {
    for (const [text, shown] of [
      ['Sure. functions.get_weather(city="Paris")\nDone.', 'Sure. \nDone.'],
      ['Ok functions.get_time({"tz": "CET"}) then.', 'Ok then.'],
    ]) {
      assert.ok(extractLocatedToolCallsFromText(text!, tools).length > 0, `recovery reads a call: ${text}`);
      assertShownAtEveryCut(text!, shown!);
    }
    for (const text of [
      'The functions.get_weather tool takes a city; functional functions.',
      'Use `functions.get_weather(city="Paris")` to call it.',
      'Then functions.other_tool(x=1) runs.',
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of everyCut(text))
        assert.equal(run(answer(), chunks).text, text, JSON.stringify(chunks));
    }
  });

  it('reads the line after a `{` that ended its line from its start', () => {
    // The `{` waits aside for the next line; that line opens with a call of its own, which is cut.
    const text = 'A set {\n[get_weather(city="Oslo")]\nDone.';
    for (const chunks of everyCut(text)) assert.equal(run(answer(), chunks).text, 'A set {\nDone.');
  });

  it('shows a JSON call within inline code as it streams, with no hold', () => {
    const text = 'Use `{"name": "get_weather", "arguments": {"city": "Paris"}}` to call it.';
    for (const size of [1, 7, 64]) {
      const chunks = text.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
      const { outputs } = run(answer(), chunks);
      assert.deepEqual(outputs, chunks, `${size}: each chunk shown as it comes`);
    }
  });
});

// The filter and recovery agree on every line shape, after prose and at the answer's start: what recovery reads
// as a call never shows, what it does not read shows unchanged, whatever the chunking.
const before = fc.constantFrom("I'll check.", 'Sure:', 'Steps:\n- one', 'Note [1].', 'For example:', '');
const lead = fc.constantFrom(
  '',
  ' ',
  '  ',
  '   ',
  '    ',
  '\t',
  '- ',
  '* ',
  '1. ',
  '> ',
  '>>> ',
  '\n    ',
  '\n',
  'Now: ',
);
const call = fc.constantFrom(
  "[get_weather(city='Oslo')]",
  "get_weather(city='Oslo')",
  'functions.get_time(tz="CET")',
  "[get_weather(city='Oslo'), get_time(tz='CET')]",
  "[get_weather(city='Oslo')] now",
  'get_weather is the tool',
  '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
  '{"name": "get_time", "parameters": {"tz": "CET"}}',
  '[{"name": "get_time", "arguments": {"tz": "CET"}}]',
  '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
  "```python\nget_weather(city='Oslo')\n```",
  '```ts\nconst x = 1;\n```',
  '{"status": "ok"}',
  '{"city": "Oslo"} is the data',
  // Within a line of prose: a JSON call (also OpenAI's function object, a list of calls) is held and cut out;
  // JSON data, an undeclared name and inline code are prose.
  'See {"name": "get_weather", "arguments": {"city": "Oslo"}} now',
  'See { "name": "get_time", "parameters": {"tz": "CET"}} now',
  'See functions.get_time(tz="CET") now',
  'x { "input": 1 } y {"id": 2, "tool": "other"} z',
  'Use `{ "name": "get_weather", "arguments": {} }` and `functions.get_time(tz="CET")` here',
  'the functions.get_time tool, { and {\n"name": "get_time", "parameters": {"tz": "CET"}} ok',
  '{"name": "get_weather", "arguments": {"city": "Oslo"}} {"name": "get_time", "arguments": {"tz": "CET"}}',
  'See {\n  "name": "get_weather",\n  "arguments": {"city": "Oslo"}\n} now',
  'Ok {"arguments": {"city": "Oslo"}, "name": "get_weather"}',
  'Data {"input": "x"} and {\n  "title": 1\n}',
  'Then [{"name": "get_time", "arguments": {"tz": "CET"}}]',
  'Ok {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}',
  'the {"name": "other", "arguments": {}} and {"name": "get_weatherly"} data',
  'Use `{"name": "get_weather", "arguments": {}}` here',
);
const after = fc.constantFrom(
  '',
  '\n',
  '\nThen I will answer.',
  '\n  [get_time(tz="CET")]\nok',
  '\n> quoted',
  '\nThat was only an example.',
);

describe('AnswerStreamFilter: lines after prose agree with recovery (property-based)', () => {
  it('a call recovery reads never shows; text it does not read shows as written; any chunking', () => {
    fc.assert(
      fc.property(
        before,
        lead,
        call,
        after,
        fc.array(fc.nat(), { maxLength: 8 }),
        (first, indent, line, rest, cuts) => {
          const text = `${first === '' ? '' : `${first}\n`}${indent}${line}${rest}`;
          const whole = run(answer(), [text]).text;
          assert.equal(run(answer(), cutText(text, cuts)).text, whole);
          assert.equal(run(answer(), [...text]).text, whole);
          const calls = extractLocatedToolCallsFromText(text, tools);
          if (calls.length === 0) assert.equal(whole, text);
          for (const found of calls) assert.ok(!whole.includes(text.slice(found.start, found.end)), whole);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

// ReAct's `Action:` / `Action Input:` (LangChain's classic agents), Command R's `Action: ```json` fence of calls and
// Functionary's `>>>name`, at the answer's start or on a line after prose: held from the line start, cut out when
// recovery reads the call; prose that only starts the same way is released as written.
describe('AnswerStreamFilter: ReAct, Command R and Functionary calls', () => {
  const react = 'Action: get_weather\nAction Input: {"city": "Oslo"}';
  const commandR = 'Action: ```json\n[{"tool_name": "get_weather", "parameters": {"city": "Oslo"}}]\n```';

  it('hides a ReAct call at the start and after prose, JSON or a plain line, cut at every place', () => {
    assertShownAtEveryCut(react, '');
    assertShownAtEveryCut(`Thought: I need the weather.\n${react}`, 'Thought: I need the weather.\n');
    assertShownAtEveryCut(
      `Thought: ok.\n${react}\nObservation: pending`,
      'Thought: ok.\nObservation: pending',
    );
    // A one-parameter tool's input as a plain line, the name in backticks.
    assertShownAtEveryCut(
      'Thought: ok.\nAction: `get_weather`\nAction Input: Oslo\nwait',
      'Thought: ok.\nwait',
    );
  });

  it("hides Command R's fenced list of calls at the start and after prose, cut at every place", () => {
    assertShownAtEveryCut(commandR, '');
    assertShownAtEveryCut(`I will look it up.\n${commandR}`, 'I will look it up.\n');
  });

  it("hides Functionary's `>>>name` call on a line after prose, cut at every place", () => {
    assertShownAtEveryCut('Let me check.\n>>>get_weather\n{"city": "Oslo"}', 'Let me check.\n');
  });

  it('streams prose that starts like them unchanged, whatever the chunking', () => {
    for (const text of [
      'Action: we wait for the user.\nAction Input is not needed here.',
      'Thought: done.\nAction: get_weather is the tool to use.\nActions speak louder.',
      'Across the sea.\nAction: get_weather\nObservation: none',
      'Quote:\n>> nested\n>>>not_a_tool\n>>> get_weather\n',
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of everyCut(text))
        assert.equal(run(answer(), chunks).text, text, JSON.stringify(chunks));
    }
  });
});

// Cline's and Roo Code's `<tool_name><param>…</param></tool_name>`: the declared tools' elements are markup for the
// answer filter (hidden as they stream, cut out when they hold a call), whatever the chunking.
describe("AnswerStreamFilter: a call written as the tool's own element", () => {
  it('hides it at the start and after prose, cut at every place', () => {
    assertShownAtEveryCut('<get_weather>\n<city>Oslo</city>\n</get_weather>', '');
    assertShownAtEveryCut(
      "I'll check.\n<get_weather><city>Oslo</city></get_weather>\nDone.",
      "I'll check.\n\nDone.",
    );
  });

  it('shows an element of an undeclared tool, unknown parameters or prose inside as written', () => {
    for (const text of [
      '<send_email>\n<to>a@b.c</to>\n</send_email>',
      '<get_weather>\n<town>Oslo</town>\n</get_weather>',
      'The <get_weather>tag wraps the city</get_weather> here.',
    ]) {
      assert.equal(extractLocatedToolCallsFromText(text, tools).length, 0, `recovery reads no call: ${text}`);
      for (const chunks of [[text], [...text]]) assert.equal(run(answer(), chunks).text, text);
    }
  });
});
