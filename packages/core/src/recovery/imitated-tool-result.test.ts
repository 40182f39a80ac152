import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LlmStepResult } from '../turn/llm-step.ts';
import { recoverStep } from '../turn/recover-step-tool-calls.ts';
import { StepPlacement } from '../turn/step-placement.ts';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';

// A model that writes the result of its own call instead of waiting for it, then "calls" again on the strength
// of that invented result: only the first call was made.
const imitating =
  'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n' +
  '<tool_response>\n{"temperature": 21, "sky": "clear"}\n</tool_response>\n' +
  'It is 21 °C. Let me also get the time.\n<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>';

describe('text after a call that imitates the tool’s result', () => {
  it('is not read for further calls', () => {
    assert.deepEqual(extractToolCallsFromText(imitating, tools), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
  });

  it('is not kept as the answer: the prose ends where the invented result starts', () => {
    const step = { rawAnswer: imitating, answer: imitating, reasoning: '', finishReason: 'stop' };
    const recovered = recoverStep({
      step: step as unknown as LlmStepResult,
      definitions: tools,
      turn: 0,
      placement: new StepPlacement(),
    });
    assert.deepEqual(
      recovered.calls.map((call) => call.name),
      ['get_weather'],
    );
    assert.equal(recovered.prose.trim(), 'Let me check.');
    assert.equal(recovered.shown, true);
  });

  it('a result marker before any call is no imitation (a model may explain the format)', () => {
    const explained =
      'Results come back in <tool_response> tags.\n<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>';
    assert.deepEqual(extractToolCallsFromText(explained, tools), [
      { name: 'get_time', arguments: { tz: 'CET' } },
    ]);
  });
});
