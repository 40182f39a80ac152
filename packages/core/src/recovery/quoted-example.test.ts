import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';

const fenced = '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```';
const oslo = [{ name: 'get_weather', arguments: { city: 'Oslo' } }];

describe('a fenced call the prose around it calls an example', () => {
  it('is a quote, whether the words come before or after the fence', () => {
    assert.deepEqual(extractToolCallsFromText(`Here is an example of a call:\n${fenced}`, tools), []);
    assert.deepEqual(
      extractToolCallsFromText(`${fenced}\nThis is illustrative, not an actual call.`, tools),
      [],
    );
  });

  it('stays a call when the words are part of a name or the prose says nothing of the kind', () => {
    assert.deepEqual(extractToolCallsFromText(`See https://example.org/docs first.\n${fenced}`, tools), oslo);
    assert.deepEqual(extractToolCallsFromText(`Calling the tool:\n${fenced}`, tools), oslo);
  });

  it('an Anthropic-style <invoke> alone in an xml fence is a quote; in a json fence a call stays a call', () => {
    const invoke = '<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>';
    assert.deepEqual(extractToolCallsFromText(`\`\`\`xml\n${invoke}\n\`\`\``, tools), []);
    assert.deepEqual(extractToolCallsFromText(invoke, tools), oslo);
    assert.deepEqual(extractToolCallsFromText(fenced, tools), oslo);
  });
});

describe('a call further down a fenced block, after other code', () => {
  it('is code shown to the reader, not a call', () => {
    for (const text of [
      'Here:\n```json\n// the call\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
      "Sure.\n```python\nimport weather\nget_weather(city='Oslo')\n```",
      "```python\nfor city in cities:\n    get_weather(city='Oslo')\n```",
      // Once code came first, a later call in the block is code too.
      "```python\nx = 1\nget_weather(city='Oslo')\nget_time(tz='CET')\n```",
    ])
      assert.deepEqual(extractToolCallsFromText(text, tools), [], text);
  });

  it('stays a call when the block opens with it: after blanks, `print(`, a wrapping tag, or other calls', () => {
    const cet = { name: 'get_time', arguments: { tz: 'CET' } };
    assert.deepEqual(
      extractToolCallsFromText("```tool_code\n\nprint(get_weather(city='Oslo'))\n```", tools),
      oslo,
    );
    assert.deepEqual(
      extractToolCallsFromText(
        '```xml\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n</function_calls>\n```',
        tools,
      ),
      oslo,
    );
    assert.deepEqual(
      extractToolCallsFromText(
        '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n{"name": "get_time", "arguments": {"tz": "CET"}}\n```',
        tools,
      ),
      [...oslo, cet],
    );
    // A block never closed (a model that forgot its close) is not read so.
    assert.deepEqual(extractToolCallsFromText("```python\nimport os\nget_weather(city='Oslo')", tools), oslo);
    // Each block is read on its own: code in one does not make the next one's call code.
    assert.deepEqual(
      extractToolCallsFromText(
        "```python\nimport os\n```\nNow:\n```tool_code\nget_weather(city='Oslo')\n```",
        tools,
      ),
      oslo,
    );
  });
});
