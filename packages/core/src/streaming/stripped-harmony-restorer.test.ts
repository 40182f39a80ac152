import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { omitUndefined, type ToolDefinition } from '@toolbus/spec';
import fc from 'fast-check';
import { findModelProfile } from '../recovery/model-profiles.ts';
import { splitTextAt } from '../testing/index.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';
import { StrippedHarmonyRestorer, strippedHarmonyRestorerFor } from './stripped-harmony-restorer.ts';

// gpt-oss behind a server that decodes with its special tokens skipped, as users report it
// (`analysisUser says … assistantfinalHello!`), written from the Harmony format: the analysis message, the
// commentary call (`<|constrain|>json` header, `<|call|>` end) and the final message, with all or some of
// their tokens gone.

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const gptOss = findModelProfile('openai/gpt-oss-20b')?.dialects;

const stripped: readonly { name: string; text: string; restored: string }[] = [
  {
    name: 'the analysis, then the final answer',
    text: 'analysisThe user wants the weather in Paris; the tool said 20.assistantfinalIt is 20°C in Paris.',
    restored:
      '<|channel|>analysis<|message|>The user wants the weather in Paris; the tool said 20.<|end|><|start|>assistant<|channel|>final<|message|>It is 20°C in Paris.',
  },
  {
    name: 'the analysis, then a commentary call',
    text: 'analysisNeed the weather. Call get_weather.assistantcommentary to=functions.get_weather json{"city":"Paris"}',
    restored:
      '<|channel|>analysis<|message|>Need the weather. Call get_weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city":"Paris"}',
  },
  {
    name: 'only some tokens stripped: <|constrain|> kept',
    text: 'analysisNeed it.assistantcommentary to=functions.get_weather <|constrain|>json{"city":"Paris"}',
    restored:
      '<|channel|>analysis<|message|>Need it.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}',
  },
  {
    name: 'only some tokens stripped: <|start|> and <|message|> kept',
    text: 'analysis<|message|>Short.<|start|>assistantfinal<|message|>Done.',
    restored: '<|channel|>analysis<|message|>Short.<|end|><|start|>assistant<|channel|>final<|message|>Done.',
  },
  {
    name: 'a commentary call opening the answer',
    text: 'commentary to=functions.get_weather json{"city":"Paris"}',
    restored: '<|channel|>commentary to=functions.get_weather json<|message|>{"city":"Paris"}',
  },
  {
    name: 'a preamble to the user, then the call',
    text: 'analysisCheck first.assistantcommentaryLooking it up.assistantcommentary to=functions.get_weather json{"city":"Oslo"}',
    restored:
      '<|channel|>analysis<|message|>Check first.<|end|><|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city":"Oslo"}',
  },
  {
    name: 'real tokens pass through',
    text: '<|channel|>analysis<|message|>Fine.<|end|><|start|>assistant<|channel|>final<|message|>Hi.<|return|>',
    restored:
      '<|channel|>analysis<|message|>Fine.<|end|><|start|>assistant<|channel|>final<|message|>Hi.<|return|>',
  },
];

function restore(pieces: readonly string[]): string {
  const restorer = new StrippedHarmonyRestorer();
  return pieces.map((piece) => restorer.process(piece)).join('') + restorer.flush();
}

function shown(pieces: readonly string[], dialects: readonly string[] | undefined) {
  const restorer = strippedHarmonyRestorerFor(dialects);
  const filter = new AnswerStreamFilter({
    tools: [weather],
    ...omitUndefined({ preferredDialects: dialects }),
  });
  let visible = '';
  let reasoning = '';
  for (const piece of [...pieces, undefined]) {
    const text = restorer
      ? piece === undefined
        ? restorer.flush()
        : restorer.process(piece)
      : (piece ?? '');
    visible += filter.process(text);
    if (piece === undefined) visible += filter.flush();
    reasoning += filter.takeReasoning();
  }
  return { visible, reasoning };
}

const anySplit = (text: string) =>
  fc.array(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 12 });

describe('StrippedHarmonyRestorer', () => {
  for (const { name, text, restored } of stripped) {
    it(`${name}: restored the same under every chunking`, () => {
      assert.equal(restore([text]), restored);
      fc.assert(
        fc.property(anySplit(text), (cuts) => {
          assert.equal(restore(splitTextAt(text, cuts)), restored);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('under the gpt-oss profile the stream shows only the final text and hands out the analysis', () => {
    const text = stripped[0]!.text;
    fc.assert(
      fc.property(anySplit(text), (cuts) => {
        assert.deepEqual(shown(splitTextAt(text, cuts), gptOss), {
          visible: 'It is 20°C in Paris.',
          reasoning: 'The user wants the weather in Paris; the tool said 20.',
        });
      }),
      { numRuns: 150 },
    );
    const call = shown([stripped[1]!.text], gptOss);
    assert.deepEqual(call, { visible: '', reasoning: 'Need the weather. Call get_weather.' });
  });

  // Prose about analyses and assistants, glued words included: for other models it is never Harmony, and under
  // the gpt-oss profile only the stripped shapes (a channel name glued to `assistant`, `analysis` glued to a
  // capital at the very start) are read.
  const words = [
    'analysis',
    'Analysis',
    'assistant',
    'final',
    'finally',
    'commentary',
    'to=functions.get_weather',
    'json',
    'The',
    'shows',
    '20°C',
    '{"city": "Paris"}',
  ];
  const prose = fc
    .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(' ', ', ', '. ', '\n')), {
      minLength: 1,
      maxLength: 20,
    })
    .map((pairs) => pairs.map(([word, gap]) => word + gap).join(''))
    // An answer opening `commentary to=functions.get_weather` and running into JSON is a call header, not prose.
    .filter((text) => !text.startsWith('commentary to='));

  it('an answer opening like a header that does not run into a body is left alone', () => {
    for (const text of [
      'commentary to=functions.get_weather is the recipient field.',
      'commentary to=\nnothing',
    ]) {
      assert.equal(restore([text]), text);
      assert.equal(restore([...text]), text);
    }
  });

  it('prose with those words streams unchanged under the gpt-oss profile, whatever the chunking', () => {
    fc.assert(
      fc.property(prose, fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 10 }), (text, cuts) => {
        const pieces = splitTextAt(text, cuts);
        assert.equal(restore(pieces), text);
      }),
      { numRuns: 300 },
    );
  });

  it('glued Harmony words stream unchanged for any other model', () => {
    const glued = fc
      .array(
        fc.constantFrom(
          'analysisThe ',
          'assistantfinal',
          'assistantcommentary',
          'assistantanalysis',
          'Report ',
          'ready. ',
          'commentary to=',
        ),
        { minLength: 1, maxLength: 12 },
      )
      .map((parts) => parts.join(''));
    for (const model of ['qwen2.5:7b', 'mistral-small', 'my-local-model']) {
      const dialects = findModelProfile(model)?.dialects;
      assert.equal(strippedHarmonyRestorerFor(dialects), undefined, model);
      fc.assert(
        fc.property(glued, fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 8 }), (text, cuts) => {
          assert.deepEqual(shown(splitTextAt(text, cuts), dialects), { visible: text, reasoning: '' });
        }),
        { numRuns: 100 },
      );
    }
  });
});
