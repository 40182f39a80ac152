import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { createToolCallParserRegistry, defaultToolCallParsers } from './tool-call-parser-registry.ts';

// A house dialect: `@@get_weather city=Oslo@@`.
const atParser: ToolCallTextParser = {
  name: 'at-signs',
  detect: (text) => text.includes('@@'),
  parse(text) {
    const calls = [];
    for (const match of text.matchAll(/@@(\w+) (\w+)=(\w+)@@/g)) {
      calls.push({
        name: match[1]!,
        arguments: { [match[2]!]: match[3]! },
        start: match.index,
        end: match.index + match[0].length,
      });
    }
    return calls;
  },
};

describe('tool-call parser registry', () => {
  it('lets a user add a dialect that the extractor then reads', () => {
    const registry = createToolCallParserRegistry();
    const text = 'Before @@get_weather city=Oslo@@ after';
    assert.deepEqual(extractToolCallsFromText(text, tools), []);
    registry.register(atParser);
    assert.deepEqual(extractToolCallsFromText(text, tools, { parsers: registry }), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
    assert.equal(registry.list().at(-2)?.name, 'at-signs');
  });

  it('removes a dialect by name', () => {
    const registry = createToolCallParserRegistry();
    assert.equal(registry.unregister('pythonic'), true);
    assert.equal(registry.unregister('pythonic'), false);
    assert.deepEqual(
      extractToolCallsFromText('[get_weather(city="Oslo")]', tools, { parsers: registry }),
      [],
    );
  });

  it('skips a parser that throws or returns garbage and keeps the others', () => {
    const broken: ToolCallTextParser = {
      name: 'broken',
      detect: () => true,
      parse: () => {
        throw new Error('boom');
      },
    };
    const garbage = {
      name: 'garbage',
      detect: () => true,
      parse: () => [{ name: 'get_weather' }],
    } as unknown as ToolCallTextParser;
    const text = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
    assert.deepEqual(
      extractToolCallsFromText(text, tools, { parsers: [broken, garbage, ...defaultToolCallParsers] }),
      [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
    );
  });

  it('gives overlapping text to the higher-priority parser', () => {
    const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    const names = defaultToolCallParsers.map((parser) => parser.name);
    assert.ok(names.indexOf('hermes') < names.indexOf('json'));
    assert.equal(extractToolCallsFromText(text, tools).length, 1);
  });
});
