import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import { AnswerRepair } from '../repair.ts';

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

function run(pieces: readonly string[], offered: readonly ToolDefinition[] = tools) {
  const repair = new AnswerRepair({ tools: offered, validateArguments: true });
  let shown = '';
  for (const piece of pieces) shown += repair.text(piece).text;
  const end = repair.end();
  return { shown: shown + end.text, end };
}

describe('AnswerRepair', () => {
  test('hands back the hidden markup of an unreadable call after prose shown as it came', () => {
    const markup = '<tool_call>\n{"name": "get_weather", "arguments": {"city": 5}}\n</tool_call>';
    // Prose streamed unchanged first (the repair keeps no second copy of it), then markup it hides.
    const { shown, end } = run([
      'Let me ',
      'check the ',
      'weather.\n',
      ...markup.match(/.{1,7}/gs)!,
      '\nDone.',
    ]);
    assert.deepEqual(end.calls, []);
    assert.match(end.unreadable ?? '', /do not match its schema/);
    // The hidden text is the raw text less the shown text (line breaks around a block may fall on either side).
    assert.equal(end.hiddenText.replace(/\s/g, ''), markup.replace(/\s/g, ''));
    assert.equal(shown, 'Let me check the weather.\n\nDone.');
  });

  test('hands back the markup it hid when the request declared no tool (tool_choice "none")', () => {
    const markup = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    const { shown, end } = run(['Here: ', ...markup.match(/.{1,6}/gs)!], []);
    assert.deepEqual(end.calls, []);
    assert.match(end.unreadable ?? '', /declared no tool/);
    assert.equal((shown + end.hiddenText).replace(/\s/g, ''), `Here:${markup}`.replace(/\s/g, ''));
    const thinking = run(['<think>hm</think>', 'Hello.'], []);
    assert.equal(thinking.end.unreadable, undefined);
    assert.equal(thinking.end.hiddenText, '');
  });

  test('hides nothing and holds no hidden text for prose alone', () => {
    const { shown, end } = run(['Sunny ', 'all ', 'day.']);
    assert.equal(shown, 'Sunny all day.');
    assert.equal(end.hiddenText, '');
    assert.equal(end.unreadable, undefined);
  });

  test('recovers a call written as text and keeps its markup off the text', () => {
    const markup = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    const { shown, end } = run(['One moment.\n', ...markup.match(/.{1,5}/gs)!]);
    assert.deepEqual(end.calls, [{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    assert.equal(shown.trim(), 'One moment.');
  });
});
