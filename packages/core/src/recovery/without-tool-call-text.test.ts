import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractLocatedToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { withoutToolCallText } from './without-tool-call-text.ts';

const tools = [
  {
    name: 'special_function',
    description: 'special_function',
    parameters: { type: 'object', properties: { arg1: { type: 'integer' } } },
  },
];
const call = '{"name": "special_function", "arguments": {"arg1": 1}}';

function prose(text: string): string {
  return withoutToolCallText(text, extractLocatedToolCallsFromText(text, tools));
}

describe('withoutToolCallText', () => {
  // llama.cpp's Hermes 2 Pro parser tests: models wrap the JSON call in a tag of their own choosing.
  for (const tag of ['tool', 'tools', 'response', 'json', 'xml', 'JSON']) {
    it(`drops a <${tag}> that held only the call`, () => {
      assert.equal(prose(`<${tag}>\n  ${call}\n</${tag}>`), '');
    });
  }

  it('keeps the prose around a wrapped call, and a fence left empty goes', () => {
    assert.equal(
      prose(`Let me check.\n\`\`\`xml\n<response>\n  ${call}\n</response>\n\`\`\`\nDone.`),
      'Let me check.\n\nDone.',
    );
  });

  it('keeps tags that do not wrap the call alone', () => {
    assert.equal(prose(`<b>Note</b>\n${call}\n<i>end</i>`), '<b>Note</b>\n\n<i>end</i>');
    assert.equal(prose(`<note>\n${call}\n</other>`), '<note>\n\n</other>');
  });

  it('drops a pythonic list with its unreadable siblings, keeping the prose around it', () => {
    const weather = [
      {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
      {
        name: 'bad',
        description: 'Bad',
        parameters: { type: 'object', properties: { x: { type: 'string' } } },
      },
    ];
    for (const list of [
      "[bad(x=b'z'), get_weather(city='Oslo')]",
      "[get_weather(city='Oslo'), bad(x='a 'b')]",
      "[bad(x=b'z'), get_weather(city='Oslo'), bad(x=b'y')]",
    ]) {
      const text = `Checking.\n${list}\nDone.`;
      const calls = extractLocatedToolCallsFromText(text, weather);
      assert.deepEqual(
        calls.map((found) => [found.name, found.arguments]),
        [['get_weather', { city: 'Oslo' }]],
        list,
      );
      assert.equal(withoutToolCallText(text, calls), 'Checking.\n\nDone.', list);
    }
    // Without brackets around them, calls after commas in prose are left as they are.
    const plain = "I'd run bad(x=b'z'), get_weather(city='Oslo') later.";
    assert.equal(withoutToolCallText(plain, extractLocatedToolCallsFromText(plain, weather)), plain);
  });
});
