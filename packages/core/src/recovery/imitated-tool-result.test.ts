import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LlmStepResult } from '../turn/llm-step.ts';
import { recoverStep } from '../turn/recover-step-tool-calls.ts';
import { StepPlacement } from '../turn/step-placement.ts';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { toolResultMarkers } from './imitated-tool-result.ts';

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

describe('finding an imitated result during extraction', () => {
  // The extractor reads the text in one pass for every needle (`TextScan`); a search of its own per result
  // marker read the rest of the text ten more times, a third of the time of hostile 1 MB extractions (issue 35).
  it('takes the result markers from the scan: no search of its own per marker', () => {
    const text = `${imitating}\n${'{"a": "<invoke name="get_weather">'.repeat(2_000)}`;
    const searched: string[] = [];
    const indexOf = String.prototype.indexOf;
    String.prototype.indexOf = function (this: string, needle: string, from?: number) {
      if (toolResultMarkers.includes(needle)) searched.push(needle);
      return indexOf.call(this, needle, from);
    };
    let found: ReturnType<typeof extractToolCallsFromText>;
    try {
      found = extractToolCallsFromText(text, tools);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.deepEqual(searched, []);
    // …and the markers are still found: only the call before the invented result counts.
    assert.deepEqual(
      found.map((call) => call.name),
      ['get_weather'],
    );
  });

  it('finds every result marker through the scan, in its exact case only', () => {
    for (const marker of toolResultMarkers) {
      const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
      const after = '<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>';
      assert.deepEqual(
        extractToolCallsFromText(`${call}\n${marker} 21 °C\n${after}`, tools).map((found) => found.name),
        ['get_weather'],
        marker,
      );
      if (marker.toLowerCase() === marker.toUpperCase()) continue;
      const otherCase = marker === marker.toLowerCase() ? marker.toUpperCase() : marker.toLowerCase();
      if (toolResultMarkers.includes(otherCase)) continue;
      assert.deepEqual(
        extractToolCallsFromText(`${call}\n${otherCase} 21 °C\n${after}`, tools).map((found) => found.name),
        ['get_weather', 'get_time'],
        otherCase,
      );
    }
  });
});
