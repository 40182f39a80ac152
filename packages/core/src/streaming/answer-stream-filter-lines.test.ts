import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
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

// The filter and recovery agree on every line shape, after prose and at the answer's start: what recovery reads
// as a call never shows, what it does not read shows unchanged, whatever the chunking.
const before = fc.constantFrom("I'll check.", 'Sure:', 'Steps:\n- one', 'Note [1].', '');
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
);
const call = fc.constantFrom(
  "[get_weather(city='Oslo')]",
  "get_weather(city='Oslo')",
  'functions.get_time(tz="CET")',
  "[get_weather(city='Oslo'), get_time(tz='CET')]",
  "[get_weather(city='Oslo')] now",
  'get_weather is the tool',
);
const after = fc.constantFrom(
  '',
  '\n',
  '\nThen I will answer.',
  '\n  [get_time(tz="CET")]\nok',
  '\n> quoted',
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
      { numRuns: 800 },
    );
  });
});
