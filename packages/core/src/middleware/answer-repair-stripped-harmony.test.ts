import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { AnswerRepair } from '../repair.ts';

// gpt-oss behind a server that decodes with `skip_special_tokens`: each Harmony message loses its
// `<|start|>assistant<|channel|>NAME<|message|>` header and `<|end|>` (the Harmony format as github.com/openai/harmony documents it), so its
// channel's name is glued to its text: `analysis…` (the reasoning), `commentary…` (a preamble to the user),
// `commentary to=functions.NAME json{…}` (a call), `final…` (the answer). The gateway and the AI SDK middleware
// repair through AnswerRepair: streamed in any chunking and whole, the same text, reasoning and calls.

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const paris = { name: 'get_weather', arguments: { city: 'Paris' } };

function streamed(text: string, size: number, modelId?: string) {
  const repair = new AnswerRepair({ tools, validateArguments: true, ...omitUndefined({ modelId }) });
  let shown = '';
  let reasoning = '';
  for (let at = 0; at < text.length; at += size) {
    const out = repair.text(text.slice(at, at + size));
    shown += out.text;
    reasoning += out.reasoning;
  }
  const end = repair.end();
  return { text: shown + end.text, reasoning: reasoning + end.reasoning, calls: end.calls };
}

function whole(text: string, modelId?: string) {
  const end = new AnswerRepair({ tools, validateArguments: true, ...omitUndefined({ modelId }) }).whole(text);
  return { text: end.text, reasoning: end.reasoning, calls: end.calls };
}

const shapes: readonly {
  name: string;
  text: string;
  model: string;
  expected: { text: string; reasoning: string; calls: readonly (typeof paris)[] };
}[] = [
  {
    name: 'a call header opening the answer, any model',
    text: 'commentary to=functions.get_weather json{"city":"Paris"}',
    model: 'my-local-model',
    expected: { text: '', reasoning: '', calls: [paris] },
  },
  {
    name: 'the analysis, then a call (gpt-oss)',
    text: 'analysisThe user wants the weather. Call get_weather.assistantcommentary to=functions.get_weather json{"city":"Paris"}',
    model: 'openai/gpt-oss-20b',
    expected: { text: '', reasoning: 'The user wants the weather. Call get_weather.', calls: [paris] },
  },
  {
    name: 'the analysis, then `<|constrain|>json` kept (gpt-oss)',
    text: 'analysisNeed it.assistantcommentary to=functions.get_weather <|constrain|>json{"city":"Paris"}',
    model: 'gpt-oss:20b',
    expected: { text: '', reasoning: 'Need it.', calls: [paris] },
  },
  {
    name: 'the analysis, then the final answer (gpt-oss)',
    text: 'analysisThe tool said 20.assistantfinalIt is 20°C in Paris.',
    model: 'openai/gpt-oss-120b',
    expected: { text: 'It is 20°C in Paris.', reasoning: 'The tool said 20.', calls: [] },
  },
  {
    name: 'a preamble opening the answer, then a call (gpt-oss)',
    text: 'commentaryLooking it up.assistantcommentary to=functions.get_weather json{"city":"Paris"}',
    model: 'openai/gpt-oss-20b',
    expected: { text: 'Looking it up.', reasoning: '', calls: [paris] },
  },
  {
    name: 'the final answer opening the answer (gpt-oss)',
    text: 'finalIt is 20°C in Paris.',
    model: 'openai/gpt-oss-20b',
    expected: { text: 'It is 20°C in Paris.', reasoning: '', calls: [] },
  },
  {
    // llama-server strips `<|end|>` and `<|return|>` alone (quoted in the real-world corpus, harmony.json).
    name: 'the analysis without its `<|end|>`, then the final answer (any model)',
    text: '<|channel|>analysis<|message|>Just a test.<|start|>assistant<|channel|>final<|message|>Hello!',
    model: 'my-local-model',
    expected: { text: 'Hello!', reasoning: 'Just a test.', calls: [] },
  },
  {
    name: 'a non-Harmony model starting with "analysis"',
    text: 'analysis of the data shows growth.',
    model: 'qwen2.5:7b',
    expected: { text: 'analysis of the data shows growth.', reasoning: '', calls: [] },
  },
];

describe('AnswerRepair on gpt-oss with its special tokens stripped', () => {
  for (const { name, text, model, expected } of shapes) {
    test(`${name}: the same text, reasoning and calls streamed at 1, 7 and 64 characters and whole`, () => {
      for (const size of [1, 7, 64])
        assert.deepEqual(streamed(text, size, model), expected, `chunks of ${size}`);
      assert.deepEqual(whole(text, model), expected);
    });
  }

  test('the analysis streams as reasoning as it comes, before the answer ends', () => {
    const repair = new AnswerRepair({ tools, modelId: 'openai/gpt-oss-20b' });
    const first = repair.text('analysisThe user wants the weather');
    const second = repair.text(' in Paris. Call it.');
    assert.equal(first.text + second.text, '');
    // Only a tail that may open the message's end (`<|end|>`, the next header) waits for the next piece.
    assert.ok(first.reasoning.length > 0 && 'The user wants the weather'.startsWith(first.reasoning));
    const soFar = first.reasoning + second.reasoning;
    assert.ok('The user wants the weather in Paris. Call it.'.startsWith(soFar), soFar);
    assert.ok(soFar.length > 'The user wants the weather'.length, soFar);
    assert.equal(soFar + repair.end().reasoning, 'The user wants the weather in Paris. Call it.');
  });
});
