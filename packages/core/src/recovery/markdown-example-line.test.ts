import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractLocatedToolCallsFromText, extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { withoutToolCallText } from './without-tool-call-text.ts';

const oslo = [{ name: 'get_weather', arguments: { city: 'Oslo' } }];
const osloAndCet = [...oslo, { name: 'get_time', arguments: { tz: 'CET' } }];

// The answer filter shows these lines as written (Markdown's code and quotes), so recovery must not read them.
describe('a named call on a line Markdown shows as code or a quote', () => {
  it('is an example in an indented code block after prose (four spaces or a tab)', () => {
    for (const text of [
      "For this:\n\n    get_weather(city='Oslo')\n",
      "Then:\n    [get_weather(city='Oslo')]",
      "Then:\n\tget_weather(city='Oslo')",
      "Then:\n  \tfunctions.get_weather(city='Oslo')",
      "Then:\n      get_weather(city='Oslo'); get_time(tz='CET')",
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), [], JSON.stringify(text));
  });

  it('is an example in a block quote or after a Python prompt, after prose or not', () => {
    for (const text of [
      "Quote:\n> get_weather(city='Oslo')",
      "> [get_weather(city='Oslo')]",
      ">>> get_weather(city='Oslo')",
      "Try:\n  >>>get_weather(city='Oslo')",
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), [], JSON.stringify(text));
  });

  it('a JSON call there is an example too, and stays a call on a line of its own or in a fence', () => {
    const json = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
    for (const text of [
      `Quote:\n> ${json}`,
      `>>> [${json}]`,
      `For this:\n\n    ${json}\n`,
      `Then:\n\t${json}`,
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), [], JSON.stringify(text));
    for (const text of [
      `I'll check.\n   ${json}`,
      `    ${json}`,
      `Sure:\n- ${json}`,
      `Sure:\n\`\`\`json\n    ${json}\n\`\`\``,
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), oslo, JSON.stringify(text));
  });

  it('stays a call indented by up to three spaces, at the answer start, in a call list, markup or a fence', () => {
    for (const text of [
      "I'll check.\n   get_weather(city='Oslo')",
      "I'll check.\n  [get_weather(city='Oslo')]",
      "    get_weather(city='Oslo')",
      "\n\n\t[get_weather(city='Oslo')]",
      "Sure:\n- [get_weather(city='Oslo')]",
      'Done.\n<function_calls>\n    get_weather(city="Oslo")\n</function_calls>',
      '```tool_code\n    print(get_weather(city="Oslo"))\n```',
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), oslo, JSON.stringify(text));
    assert.deepEqual(
      extractToolCallsFromText("Both:\n[\n    get_weather(city='Oslo'),\n    get_time(tz='CET')\n]", tools),
      osloAndCet,
    );
  });

  it('a list item that held only the call leaves no marker behind when the call is cut out', () => {
    for (const [text, prose] of [
      ["Plan:\n- [get_weather(city='Oslo')]\n- then answer", 'Plan:\n\n- then answer'],
      ["2) [get_weather(city='Oslo')]", ''],
    ] as const) {
      const calls = extractLocatedToolCallsFromText(text, tools);
      assert.equal(calls.length, 1);
      assert.equal(withoutToolCallText(text, calls), prose);
    }
  });
});
