import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cutText } from '../testing/scripted-turn.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';
import { XmlToolCallStreamFilter } from './xml-tool-call-stream-filter.ts';

function runChunks(filter: ToolCallMarkupStreamFilter, chunks: readonly string[]): string {
  let output = '';
  for (const chunk of chunks) output += filter.process(chunk);
  return output + filter.flush();
}

const block = '<function_calls><invoke name="x"><parameter name="p">1</parameter></invoke></function_calls>';

describe('XmlToolCallStreamFilter', () => {
  it('removes a block in one chunk and keeps the text around it', () => {
    assert.equal(runChunks(new XmlToolCallStreamFilter(), [`Hello ${block} world`]), 'Hello  world');
  });

  it('removes a block whatever the chunk boundaries, in any letter case', () => {
    const text = `A<FUNCTION_CALLS>\n<invoke name="x"></invoke></Function_Calls>B`;
    for (let cut = 0; cut <= text.length; cut++) {
      assert.equal(
        runChunks(new XmlToolCallStreamFilter(), [text.slice(0, cut), text.slice(cut)]),
        'AB',
        `cut ${cut}`,
      );
    }
    assert.equal(runChunks(new XmlToolCallStreamFilter(), [...text]), 'AB');
  });

  it('holds back only a possible marker prefix', () => {
    const filter = new XmlToolCallStreamFilter();
    assert.equal(filter.process('Hello <func'), 'Hello ');
    assert.equal(filter.process('tion'), '');
    assert.equal(filter.process('al programming'), '<functional programming');
  });

  it('waits for the character after <function_calls before deciding', () => {
    const filter = new XmlToolCallStreamFilter();
    assert.equal(filter.process('x <function_calls'), 'x ');
    assert.equal(filter.process('omething> y'), '<function_callsomething> y');
    const second = new XmlToolCallStreamFilter();
    assert.equal(second.process('x <function_calls'), 'x ');
    assert.equal(second.process(' secret</function_calls> y'), ' y');
  });

  it('drops an unclosed block at flush and emits a dangling partial marker', () => {
    const unclosed = new XmlToolCallStreamFilter();
    assert.equal(unclosed.process('Hi <function_calls><invoke name="x">'), 'Hi ');
    assert.equal(unclosed.flush(), '');
    const partial = new XmlToolCallStreamFilter();
    assert.equal(partial.process('ends with <function_calls'), 'ends with ');
    assert.equal(partial.flush(), '<function_calls');
  });

  it('does not touch other dialects', () => {
    assert.equal(
      runChunks(new XmlToolCallStreamFilter(), ['<tool_call>{}</tool_call>']),
      '<tool_call>{}</tool_call>',
    );
  });
});

describe('ToolCallMarkupStreamFilter (all dialects)', () => {
  it('drops the blank lines after calls it hid where the answer opens, as after thinking, at every cut', () => {
    const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    for (const [text, shown] of [
      [`${call}\n\nI will wait.`, 'I will wait.'],
      [`${call}\n${call}\n  Done.`, 'Done.'],
      // Blanks before the block were shown before it closed: they stay. Text before it: nothing is dropped.
      [`\n${call}\nI will wait.`, '\nI will wait.'],
      [`Sure.\n${call}\nDone.`, 'Sure.\n\nDone.'],
      [`${call}\n<think>a mention</think>`, '<think>a mention</think>'],
    ] as const) {
      for (let cut = 0; cut <= text.length; cut++)
        assert.equal(
          runChunks(new ToolCallMarkupStreamFilter(), [text.slice(0, cut), text.slice(cut)]),
          shown,
          `${JSON.stringify(text)} cut at ${cut}`,
        );
      assert.equal(runChunks(new ToolCallMarkupStreamFilter(), [...text]), shown, JSON.stringify(text));
    }
  });

  const cases: ReadonlyArray<readonly [string, string]> = [
    ['a<tool_call>{"name": "x"}</tool_call>b', 'ab'],
    ['a[TOOL_CALLS][{"name": "x"}] and everything after', 'a'],
    ['a<|python_tag|>{"name": "x"}<|eom_id|>b', 'ab'],
    ['a<function=x>{}</function>b', 'ab'],
    [
      'a<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>x<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>b',
      'ab',
    ],
    ['a<|tool_calls_section_begin|>…<|tool_calls_section_end|>b', 'ab'],
    ['a<|start|>assistant<|channel|>commentary to=functions.x <|constrain|>json<|message|>{}<|call|>b', 'ab'],
    ['a<|channel|>commentary to=functions.x <|message|>{}<|call|>b', 'ab'],
    ['a<TOOLCALL>[]</TOOLCALL>b<toolcall>[]</toolcall>c', 'abc'],
    ['a<function_calls>x</function_calls>b', 'ab'],
  ];
  for (const [text, expected] of cases) {
    it(`filters ${JSON.stringify(text.slice(0, 40))} at every single split and one char at a time`, () => {
      for (let cut = 0; cut <= text.length; cut++) {
        const output = runChunks(new ToolCallMarkupStreamFilter(), [text.slice(0, cut), text.slice(cut)]);
        assert.equal(output, expected, `cut ${cut}`);
      }
      assert.equal(runChunks(new ToolCallMarkupStreamFilter(), [...text]), expected);
    });
  }
});

// Random text made of prose pieces, marker fragments (to tempt false matches) and whole blocks.
const pieces = [
  'hello ',
  'world',
  '<',
  '<func',
  '<function_callsX>',
  '</function_calls>',
  '[TOOL',
  '<|',
  '|>',
  '\n',
  ' ',
  'é',
  '<tool_',
];
const blocks = [
  '<function_calls><invoke name="x"></invoke></function_calls>',
  '<FUNCTION_CALLS\n>inner</function_CALLS>',
  '<tool_call>{"a": "<function_calls>"}</tool_call>',
  '<|python_tag|>{}<|eot_id|>',
  '<function=f>{}</function>',
];
const segment = fc.oneof(fc.constantFrom(...pieces), fc.constantFrom(...blocks), fc.string({ maxLength: 4 }));
const document = fc.array(segment, { maxLength: 24 }).map((parts) => parts.join(''));

describe('stream filters: property-based', () => {
  for (const [label, make] of [
    ['XmlToolCallStreamFilter', () => new XmlToolCallStreamFilter()],
    ['ToolCallMarkupStreamFilter', () => new ToolCallMarkupStreamFilter()],
  ] as const) {
    it(`${label}: any chunking gives the one-shot output`, () => {
      fc.assert(
        fc.property(document, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
          const oneShot = runChunks(make(), [text]);
          assert.equal(runChunks(make(), cutText(text, cuts)), oneShot);
        }),
        { numRuns: 1500 },
      );
    });

    it(`${label}: every 2-way split and 1-char chunks give the one-shot output`, () => {
      fc.assert(
        fc.property(document, (text) => {
          const oneShot = runChunks(make(), [text]);
          for (let cut = 0; cut <= text.length; cut++) {
            assert.equal(runChunks(make(), [text.slice(0, cut), text.slice(cut)]), oneShot);
          }
          assert.equal(runChunks(make(), [...text]), oneShot);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('the output never contains a complete <function_calls> block outside Markdown code', () => {
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        // Inside backticks a block is a mention and stays (the turn loop still recovers a call from it).
        fc.pre(!text.includes('`'));
        const output = runChunks(new XmlToolCallStreamFilter(), cutText(text, cuts));
        assert.doesNotMatch(output, /<function_calls[\s>][\s\S]*?<\/function_calls>/i);
      }),
      { numRuns: 1000 },
    );
  });

  it('text without markers passes through unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        fc.pre(!/[<[]/.test(text));
        assert.equal(runChunks(new ToolCallMarkupStreamFilter(), cutText(text, cuts)), text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('ToolCallMarkupStreamFilter with custom markers', () => {
  it('filters a user-defined marker pair and nothing else', () => {
    const filter = new ToolCallMarkupStreamFilter([{ open: '<<call>>', closes: ['<</call>>'] }]);
    const text = 'a<<CALL>>secret<</call>>b<tool_call>kept</tool_call>';
    for (let cut = 0; cut <= text.length; cut++) {
      const chunked = new ToolCallMarkupStreamFilter([{ open: '<<call>>', closes: ['<</call>>'] }]);
      assert.equal(
        runChunks(chunked, [text.slice(0, cut), text.slice(cut)]),
        'ab<tool_call>kept</tool_call>',
      );
    }
    assert.equal(runChunks(filter, [text]), 'ab<tool_call>kept</tool_call>');
  });
});

describe('ToolCallMarkupStreamFilter with a one-character marker', () => {
  it('filters it at every split, next to longer markers', () => {
    const markers = [
      { open: '@', closes: ['@'] },
      { open: '<tool_call>', closes: ['</tool_call>'] },
    ];
    const text = 'a@hidden@b<tool_call>x</tool_call>c@';
    for (let cut = 0; cut <= text.length; cut++) {
      assert.equal(
        runChunks(new ToolCallMarkupStreamFilter(markers), [text.slice(0, cut), text.slice(cut)]),
        'abc',
      );
    }
  });
});

describe('ToolCallMarkupStreamFilter with markers sharing their first characters', () => {
  // Markers are looked up by their first two characters, then by the third: a two-character marker, markers that
  // part at the third character and a prose tag with the same start must each be told apart at every split.
  const markers = [
    { open: '<%', closes: ['%>'] },
    { open: '<%a', closes: ['a%>'] },
    { open: '<%B>', closes: ['</%b>'] },
  ];
  const cases: [string, string][] = [
    ['x <%hidden%> y', 'x  y'],
    ['x <%aHIDDEN a%> y', 'x  y'],
    ['x <%b>HIDDEN</%B> y', 'x  y'],
    ['x <%A>hidden a%> y', 'x  y'],
    ['x <b>bold</b> y </%b> z', 'x <b>bold</b> y </%b> z'],
  ];
  it('hides each at every split, and leaves a tag that only shares its start', () => {
    for (const [text, expected] of cases) {
      assert.equal(runChunks(new ToolCallMarkupStreamFilter(markers), [text]), expected, text);
      assert.equal(runChunks(new ToolCallMarkupStreamFilter(markers), [...text]), expected, text);
      for (let cut = 0; cut <= text.length; cut++) {
        assert.equal(
          runChunks(new ToolCallMarkupStreamFilter(markers), [text.slice(0, cut), text.slice(cut)]),
          expected,
          `${text} cut at ${cut}`,
        );
      }
    }
  });
});
