import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateText, jsonSchema, streamText, type ToolSet, wrapLanguageModel } from 'ai';
import { useQueuedModelServer } from '../llm/__fixtures__/scripted-providers.ts';
import { resolveLanguageModel } from '../llm/resolve-language-model.ts';
import { chunkText, textSteps } from '../testing/index.ts';
import { createRecoveryMiddleware } from './recovery-middleware.ts';

// The middleware inside the real AI SDK (`wrapLanguageModel`, `streamText`, `generateText`), over a gpt-oss
// served by a server that does not parse Harmony (OpenAI-compatible wire format from the scripted server): the
// analysis channel must reach the application as reasoning, never as text.

const analysis = 'The user wants the weather in Paris. Call get_weather.';
const harmonyCall = `<|channel|>analysis<|message|>${analysis}<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>`;
const harmonyAnswer =
  '<|channel|>analysis<|message|>The tool said 20. Answer briefly.<|end|><|start|>assistant<|channel|>final<|message|>It is 20°C in Paris.<|return|>';
const harmonyToken = /<\|[a-z_]+\|>/;

// No `execute`: the application gets the calls back, so each test is one model request.
const tools: ToolSet = {
  get_weather: {
    description: 'The weather in a city',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
  },
};

describe('recoveryMiddleware in the AI SDK over a gpt-oss without a Harmony parser', () => {
  const { turns, server } = useQueuedModelServer();
  const model = () =>
    wrapLanguageModel({
      model: resolveLanguageModel(`openai-compatible:${server().url}/v1#openai/gpt-oss-20b`, {
        env: { TOOLBUS_API_KEY: 'test-key' },
      }),
      middleware: createRecoveryMiddleware({ generateId: () => 'call_recovered' }),
    });

  it('streamText: the analysis streams as reasoning parts, the commentary call as a tool call', async () => {
    turns.push(textSteps(chunkText(harmonyCall, 5)));
    const result = streamText({ model: model(), prompt: 'Weather in Paris?', tools });
    const parts: { type: string; id?: string }[] = [];
    for await (const part of result.fullStream) parts.push(part as { type: string; id?: string });
    assert.equal(await result.reasoningText, analysis);
    assert.equal(await result.text, '');
    const calls = await result.toolCalls;
    assert.deepEqual(
      calls.map((call) => [call.toolName, call.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.equal(await result.finishReason, 'tool-calls');
    // One reasoning part, opened and closed with one id, before the call.
    const reasoningParts = parts.filter((part) => part.type.startsWith('reasoning-'));
    assert.equal(reasoningParts[0]?.type, 'reasoning-start');
    assert.equal(reasoningParts.at(-1)?.type, 'reasoning-end');
    assert.ok(reasoningParts.length > 3, 'the analysis streamed in pieces');
    assert.equal(new Set(reasoningParts.map((part) => part.id)).size, 1);
    assert.ok(
      parts.findIndex((part) => part.type === 'reasoning-end') <
        parts.findIndex((part) => part.type === 'tool-call'),
    );
  });

  it('streamText: a final-channel answer streams as text, its analysis as reasoning', async () => {
    turns.push(textSteps(chunkText(harmonyAnswer, 3)));
    const result = streamText({ model: model(), prompt: 'Weather in Paris?', tools });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    assert.equal(text, 'It is 20°C in Paris.');
    assert.doesNotMatch(text, harmonyToken);
    assert.equal(await result.reasoningText, 'The tool said 20. Answer briefly.');
    assert.deepEqual(await result.toolCalls, []);
  });

  it('generateText: the analysis is a reasoning content part, the call a tool call', async () => {
    turns.push(textSteps([harmonyCall]));
    const result = await generateText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(result.reasoningText, analysis);
    assert.equal(result.text, '');
    assert.deepEqual(
      result.toolCalls.map((call) => [call.toolName, call.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.deepEqual(
      result.content.map((part) => part.type),
      ['reasoning', 'tool-call'],
    );
  });

  it('generateText: a final answer keeps only the final text, with the analysis as reasoning', async () => {
    turns.push(textSteps([harmonyAnswer]));
    const result = await generateText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(result.text, 'It is 20°C in Paris.');
    assert.equal(result.reasoningText, 'The tool said 20. Answer briefly.');
    assert.deepEqual(result.toolCalls, []);
  });

  // The same answers from a server that strips Harmony's special tokens (only the channel names stay).
  const strippedCall = `analysis${analysis}assistantcommentary to=functions.get_weather json{"city":"Paris"}`;
  const strippedAnswer = 'analysisThe tool said 20. Answer briefly.assistantfinalIt is 20°C in Paris.';

  it('streamText, tokens stripped: the analysis is reasoning, the call a tool call, the final text the text', async () => {
    turns.push(textSteps(chunkText(strippedCall, 4)));
    const call = streamText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(await call.text, '');
    assert.equal(await call.reasoningText, analysis);
    assert.deepEqual(
      (await call.toolCalls).map((part) => [part.toolName, part.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    turns.push(textSteps(chunkText(strippedAnswer, 4)));
    const answer = streamText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(await answer.text, 'It is 20°C in Paris.');
    assert.equal(await answer.reasoningText, 'The tool said 20. Answer briefly.');
  });

  it('generateText, tokens stripped: the same', async () => {
    turns.push(textSteps([strippedCall]));
    const call = await generateText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(call.text, '');
    assert.equal(call.reasoningText, analysis);
    assert.deepEqual(
      call.toolCalls.map((part) => [part.toolName, part.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    turns.push(textSteps([strippedAnswer]));
    const answer = await generateText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(answer.text, 'It is 20°C in Paris.');
    assert.equal(answer.reasoningText, 'The tool said 20. Answer briefly.');
  });

  it('plain prose passes through both paths unchanged, with no reasoning', async () => {
    const prose = 'The analysis shows Paris is mild; {"note": "no call"} is just JSON.';
    turns.push(textSteps(chunkText(prose, 4)));
    const streamed = streamText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(await streamed.text, prose);
    assert.equal(await streamed.reasoningText, undefined);
    turns.push(textSteps([prose]));
    const generated = await generateText({ model: model(), prompt: 'Weather in Paris?', tools });
    assert.equal(generated.text, prose);
    assert.equal(generated.reasoningText, undefined);
  });
});
