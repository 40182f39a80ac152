import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChatCompletionStreamRepair } from './chat-completion-repair.ts';

const tools = [
  {
    name: 'get_weather',
    description: '',
    parameters: { type: 'object' as const, properties: { city: { type: 'string' } } },
  },
];

function chunk(choices: unknown[]): string {
  return JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices });
}

function eventsOf(out: string | undefined): Record<string, unknown>[] {
  assert.ok(out !== undefined, 'the repair wrote events anew');
  return out
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, unknown>);
}

describe('ChatCompletionStreamRepair', () => {
  test('sends a chunk the repair leaves as it was on as the upstream wrote it', () => {
    const repair = new ChatCompletionStreamRepair({ tools });
    const data = chunk([{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }]);
    assert.equal(repair.repair(data), undefined);
    assert.equal(repair.push(data), `data: ${data}\n\n`);
  });

  test('keeps the other choices of a chunk as they came when one of them changes', () => {
    const repair = new ChatCompletionStreamRepair({ tools });
    // Choice 1 opens with reasoning written into its text (moved to reasoning_content), choice 0 is prose.
    const first = chunk([
      { index: 0, delta: { content: 'Sunny' }, finish_reason: null, logprobs: null },
      { index: 1, delta: { content: '<think>hm</think>Rain' }, finish_reason: null },
    ]);
    const [event] = eventsOf(repair.repair(first));
    assert.deepEqual(event?.choices, [
      { index: 0, delta: { content: 'Sunny' }, finish_reason: null, logprobs: null },
      { index: 1, delta: { content: 'Rain', reasoning_content: 'hm' }, finish_reason: null },
    ]);
    // Choice 0 finishes unchanged (its finish is kept though its delta is empty) while choice 1 writes a call.
    const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    const last = chunk([
      { index: 0, delta: {}, finish_reason: 'stop' },
      { index: 1, delta: { content: call }, finish_reason: 'stop' },
    ]);
    const events = eventsOf(repair.repair(last));
    const choices = events.flatMap((each) => each.choices as Record<string, unknown>[]);
    assert.deepEqual(choices[0], { index: 0, delta: {}, finish_reason: 'stop' });
    const calls = choices.filter((choice) => choice.index === 1);
    assert.equal(calls.at(-1)?.finish_reason, 'tool_calls');
    assert.ok(!JSON.stringify(events).includes('<tool_call>'), 'no markup in the text');
    assert.match(JSON.stringify(calls), /get_weather/);
    assert.equal(repair.report.recovered, 1);
  });
});
