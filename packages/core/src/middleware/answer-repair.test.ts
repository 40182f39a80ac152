import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { templateOpensThinking } from '../recovery/dialects/thinking-block-parser.ts';
import { AnswerRepair } from '../repair.ts';

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

const timeTool: ToolDefinition = {
  name: 'get_time',
  description: 'Time in a zone',
  parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

function run(pieces: readonly string[], offered: readonly ToolDefinition[] = tools, modelId?: string) {
  const repair = new AnswerRepair({
    tools: offered,
    validateArguments: true,
    ...omitUndefined({ modelId }),
  });
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

  test('loses no call the filter cut while streaming, when the profile finds another call elsewhere', () => {
    // Qwen's profile tries Hermes first: over the whole answer it finds only the `<tool_call>`, while the filter
    // cut the pythonic line (and the held start) because recovery read a call there with every dialect.
    const hermes = '<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>';
    const both = [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'get_time', arguments: { tz: 'CET' } },
    ];
    for (const text of [
      `Sure.\n[get_weather(city='Oslo')]\nAnd the time:\n${hermes}`,
      `[get_weather(city='Oslo')]\n${hermes}`,
      `Sure.\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n${hermes}`,
    ]) {
      for (const size of [1, 4, text.length]) {
        const { shown, end } = run(
          text.match(new RegExp(`.{1,${size}}`, 'gs'))!,
          [...tools, timeTool],
          'qwen2.5:7b',
        );
        assert.deepEqual(end.calls, both, `${JSON.stringify(text)} in chunks of ${size}`);
        assert.doesNotMatch(shown, /get_weather|get_time/);
      }
    }
  });

  test('keeps dropped a cut call that recovery drops with every dialect too (after an imitated result)', () => {
    const text =
      '<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}</tool_call>\n<tool_response>12:00</tool_response>\nNow:\n[get_weather(city=\'Oslo\')]';
    for (const size of [1, 5, text.length]) {
      const { end } = run(text.match(new RegExp(`.{1,${size}}`, 'gs'))!, [...tools, timeTool], 'qwen2.5:7b');
      assert.deepEqual(end.calls, [{ name: 'get_time', arguments: { tz: 'CET' } }], `chunks of ${size}`);
    }
  });

  test('hands back the hidden text of a failed recovery without the reasoning it split off', () => {
    const markup = '<tool_call>\n{"name": "get_weather", "arguments": {"city": 5}}\n</tool_call>';
    const repair = new AnswerRepair({ tools, validateArguments: true });
    let reasoning = '';
    for (const piece of ['<think>Plan the ', 'call.</think>', 'Here:\n', markup])
      reasoning += repair.text(piece).reasoning;
    const end = repair.end();
    assert.match(end.unreadable ?? '', /do not match its schema/);
    assert.equal(reasoning + end.reasoning, 'Plan the call.');
    assert.equal(end.hiddenText.replace(/\s/g, ''), markup.replace(/\s/g, ''));
  });
  test('an answer cut by the token limit: the call still being written is left out, the ones before it stay', () => {
    const noZone: ToolDefinition = { ...timeTool, parameters: { type: 'object', properties: {} } };
    const cut =
      '[TOOL_CALLS] [{"name": "get_time", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Par';
    const repair = new AnswerRepair({ tools: [...tools, noZone], validateArguments: true });
    repair.text(cut);
    const end = repair.end({ cutByTokenLimit: true });
    assert.deepEqual(end.calls, [{ name: 'get_time', arguments: {} }]);
    assert.equal(end.truncated, true);
    assert.equal(end.hiddenText, '', 'a call was made: the cut markup stays hidden');

    const lone = new AnswerRepair({ tools: [...tools, noZone], validateArguments: true });
    lone.text('{"name": "get_time", "arguments": {');
    const loneEnd = lone.end({ cutByTokenLimit: true });
    assert.deepEqual(loneEnd.calls, [], 'no get_time({}) the model never finished');
    assert.equal(loneEnd.truncated, true);
    assert.match(loneEnd.unreadable ?? '', /output token limit cut off the call to get_time/);

    // The same text on a finish that is not the limit: read as before (repair closes the open call).
    const whole = new AnswerRepair({ tools: [...tools, noZone], validateArguments: true });
    whole.text('{"name": "get_time", "arguments": {');
    assert.deepEqual(whole.end().calls, [{ name: 'get_time', arguments: {} }]);
  });

  test('shows no blank text between calls: an answer of calls alone has no text, as a working parser returns', () => {
    const block = (city: string) =>
      `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;
    const repair = new AnswerRepair({ tools, validateArguments: true });
    const pieces = [block('Oslo'), '\n', '\n', block('Rome'), '\n'];
    const shown = pieces.map((piece) => repair.text(piece).text);
    const end = repair.end();
    assert.deepEqual(shown, ['', '', '', '', '']);
    assert.equal(end.text, '');
    assert.deepEqual(
      end.calls.map((call) => call.arguments),
      [{ city: 'Oslo' }, { city: 'Rome' }],
    );
    // Blank text kept aside goes out with the text after it, and at the end when no call is read.
    const prose = new AnswerRepair({ tools, validateArguments: true });
    assert.equal(prose.text('\n\n').text, '');
    assert.equal(prose.text('Hi').text, '\n\nHi');
    assert.equal(run(['\n', ' ']).shown, '\n ');
  });

  test("streams the thinking a model's chat template opened as reasoning, at every chunk size", () => {
    const text = 'Plan: greet back.\n</think>\n\nHello!';
    for (const size of [1, 2, 5, text.length]) {
      for (const own of [false, true]) {
        // A server whose template did not open the thinking has the model write its own `<think>`: not doubled.
        const answer = own ? `<think>\n${text}` : text;
        const repair = new AnswerRepair({ tools: [], modelId: 'DeepSeek-R1-Distill-Qwen-7B' });
        let shown = '';
        let reasoning = '';
        for (let at = 0; at < answer.length; at += size) {
          const output = repair.text(answer.slice(at, at + size));
          shown += output.text;
          reasoning += output.reasoning;
        }
        const end = repair.end();
        assert.equal((shown + end.text).trim(), 'Hello!', `chunks of ${size}`);
        assert.equal((reasoning + end.reasoning).trim(), 'Plan: greet back.', `chunks of ${size}`);
      }
    }
    // Another model's lone `</think>` is text while it streams (nothing said the template opened thinking)…
    const other = new AnswerRepair({ tools: [], modelId: 'qwen3-8b' });
    assert.equal(other.text(text).text, text);
    // …and split off once the answer is whole.
    const whole = new AnswerRepair({ tools: [], modelId: 'qwen3-8b' }).whole(text);
    assert.deepEqual([whole.text, whole.reasoning], ['Hello!', 'Plan: greet back.']);
  });

  test('gives a whole answer whose markup made no call back as the model wrote it, in its order', () => {
    const markup = '<tool_call>\n{"name": "send_email", "arguments": {"to": "a@b"}}\n</tool_call>';
    for (const written of [
      `${markup}\nI will wait.`,
      `Sure.\n${markup}\nThen more.`,
      `<think>\nplan\n</think>\n\n${markup}\n\nI will wait.`,
    ]) {
      const end = new AnswerRepair({ tools, validateArguments: true }).whole(written);
      assert.deepEqual(end.calls, []);
      assert.match(end.unreadable ?? '', /no call of a declared tool/);
      assert.equal(end.text, written.replace('<think>\nplan\n</think>\n\n', ''), written);
      assert.equal(end.hiddenText, '');
    }
    // A call read: the markup is cut out as before.
    const made = new AnswerRepair({ tools, validateArguments: true }).whole(
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\nI will wait.',
    );
    assert.deepEqual(made.calls, [{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    assert.equal(made.text.trim(), 'I will wait.');
  });

  test('knows which models the chat template opens the thinking of', () => {
    for (const id of [
      'deepseek-r1',
      'deepseek-ai/DeepSeek-R1-0528',
      'qwq:32b',
      'Qwen/Qwen3-235B-A22B-Thinking-2507',
    ])
      assert.ok(templateOpensThinking(id), id);
    for (const id of ['qwen3-8b', 'deepseek-v3', 'Qwen/Qwen3-235B-A22B-Instruct-2507', 'llama3.1', undefined])
      assert.ok(!templateOpensThinking(id), String(id));
  });
});
