import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { omitUndefined, type ToolDefinition } from '@toolbus/spec';
import { extractToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import { findModelProfile } from '../recovery/model-profiles.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';

// gpt-oss's call header as a server that decodes with `skip_special_tokens` leaves it: the Harmony format writes
// `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>`
// (the Harmony format as github.com/openai/harmony documents it, "Receiving tool calls"), and with its tokens gone the answer opens with
// `commentary to=functions.get_weather json{"city":"Paris"}`. A declared tool's name after that recipient, running
// into JSON arguments, is specific enough for any model: no profile or template is needed to hold and cut it.

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const chunkSizes = [1, 7, 64];

/** Streams `text` through the filter in chunks of `size`; what was shown while streaming and at the end. */
function stream(text: string, size: number, model?: string) {
  const dialects = findModelProfile(model)?.dialects;
  const filter = new AnswerStreamFilter({
    tools: [weather],
    ...omitUndefined({ preferredDialects: dialects }),
  });
  let streamed = '';
  for (let at = 0; at < text.length; at += size) streamed += filter.process(text.slice(at, at + size));
  return { streamed, shown: streamed + filter.flush() };
}

const calls: readonly { name: string; text: string }[] = [
  { name: 'the header, then ` json`', text: 'commentary to=functions.get_weather json{"city":"Paris"}' },
  {
    name: 'the header with `<|constrain|>` kept',
    text: 'commentary to=functions.get_weather <|constrain|>json{"city":"Paris"}',
  },
  { name: '`json` glued to the name', text: 'commentary to=functions.get_weatherjson{"city":"Paris"}' },
  {
    name: 'the `<|call|>` end kept',
    text: 'commentary to=functions.get_weather json{"city": "Paris"}<|call|>',
  },
  { name: 'blanks before it', text: '\n commentary to=functions.get_weather json {"city":"Paris"}' },
];

describe('a stripped Harmony call header opening the answer', () => {
  for (const { name, text } of calls) {
    it(`${name}: held from its first character and cut, at 1, 7 and 64-character chunks`, () => {
      for (const size of chunkSizes) {
        assert.deepEqual(stream(text, size), { streamed: '', shown: '' }, `chunks of ${size}`);
        // For a model no profile names, too: the words are the evidence.
        assert.deepEqual(
          stream(text, size, 'my-local-model'),
          { streamed: '', shown: '' },
          `chunks of ${size}`,
        );
      }
      assert.deepEqual(extractToolCallsFromText(text, [weather]), [
        { name: 'get_weather', arguments: { city: 'Paris' } },
      ]);
    });
  }

  // Each streams unchanged at every chunk size: the opening is read only at the answer's start, only with a declared
  // tool's name, only when it runs into JSON.
  const prose: readonly { name: string; text: string; model?: string }[] = [
    {
      name: 'prose that mentions the recipient mid-sentence',
      text: 'The header commentary to=functions.get_weather json{"city":"Paris"} is how gpt-oss calls a tool.',
    },
    { name: 'an undeclared tool', text: 'commentary to=functions.send_email json{"to":"a@b.c"}' },
    { name: 'a header that runs into prose', text: 'commentary to=functions.get_weather is the recipient.' },
    { name: 'commentary as a word', text: 'commentary on the results follows.\nIt is 20°C.' },
    {
      name: 'a non-Harmony model starting with "analysis"',
      text: 'analysis of the data shows growth in Paris.',
      model: 'qwen2.5:7b',
    },
    {
      name: 'a non-Harmony model gluing analysis',
      text: 'analysisThe data shows growth.',
      model: 'mistral-small',
    },
  ];
  for (const { name, text, model } of prose) {
    it(`${name}: streams unchanged at 1, 7 and 64-character chunks`, () => {
      for (const size of chunkSizes) assert.equal(stream(text, size, model).shown, text, `chunks of ${size}`);
    });
  }

  it('recovery reads a stripped header only where a message header stands', () => {
    const call = [{ name: 'get_weather', arguments: { city: 'Paris' } }];
    for (const text of [
      'We call it.assistantcommentary to=functions.get_weatherjson{"city":"Paris"}',
      'Done.<|end|>commentary to=functions.get_weather json{"city":"Paris"}',
      '  commentary to=functions.get_weather json{"city":"Paris"}',
    ])
      assert.deepEqual(extractToolCallsFromText(text, [weather]), call, text);
    for (const text of [
      'gpt-oss calls with commentary to=functions.get_weather json{"city":"Paris"} in its header.',
      'Use to=functions.get_weather {"city":"Paris"} to call it.',
    ])
      assert.deepEqual(extractToolCallsFromText(text, [weather]), [], text);
  });

  it('prose opening like the header is released as soon as it cannot be one', () => {
    const text = 'commentary to=functions.get_weather is the recipient.';
    // Shown by the end of `get_weather i`: what follows the name is not a content type or JSON.
    const upTo = text.indexOf(' is') + 2;
    assert.equal(stream(text.slice(0, upTo), 1).streamed, text.slice(0, upTo));
  });
});
