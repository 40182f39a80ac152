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
