import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialectFixtures, quirkFixtures } from './__fixtures__/dialect-fixtures.ts';
import { loadRealWorldCorpus } from './__fixtures__/real-world-corpus.ts';
import { realWorldFixtures } from './__fixtures__/real-world-fixtures.ts';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { mayCallDeclaredTool } from './names-as-written.ts';
import { createToolCallParserRegistry, defaultToolCallParsers } from './tool-call-parser-registry.ts';

// The built-in parsers as copies the gate does not know: every text is read in full.
const ungated: readonly ToolCallTextParser[] = defaultToolCallParsers.map((parser) => ({ ...parser }));

// The contract the recovery gate relies on, checked on every answer the recovery tests hold.
function readsOnlyWrittenNames(text: string, names: readonly string[]): void {
  if (/[{\\&]/.test(text)) return;
  for (const name of names)
    assert.ok(text.includes(name), `${name} recovered from text that does not write it`);
}

describe('built-in parsers read tool names as written', () => {
  it('every call recovered from the dialect, quirk and real-world fixtures names a tool the text writes', () => {
    for (const fixture of [...dialectFixtures, ...quirkFixtures, ...realWorldFixtures]) {
      const calls = extractToolCallsFromText(fixture.text, tools, { parsers: ungated });
      readsOnlyWrittenNames(
        fixture.text,
        calls.map((call) => call.name),
      );
    }
  });

  it('every call recovered from the real-world corpus names a tool the text writes', () => {
    for (const entry of loadRealWorldCorpus()) {
      const calls = extractToolCallsFromText(entry.text, entry.tools, { parsers: ungated });
      readsOnlyWrittenNames(
        entry.text,
        calls.map((call) => call.name),
      );
    }
  });
});

describe('mayCallDeclaredTool', () => {
  const prose = 'It is sunny in Oslo today, around 12 degrees (a fine day for a walk).';

  it('rules out prose that writes no declared name, no `{` and no escape', () => {
    assert.equal(mayCallDeclaredTool(prose, tools, defaultToolCallParsers), false);
    assert.equal(mayCallDeclaredTool(prose, tools, ungated), true);
    assert.deepEqual(extractToolCallsFromText(prose, tools), []);
  });

  it('reads text that writes a name, a `{` or an escape', () => {
    assert.equal(mayCallDeclaredTool(`${prose} get_weather`, tools, defaultToolCallParsers), true);
    assert.equal(mayCallDeclaredTool(`${prose} {`, tools, defaultToolCallParsers), true);
    assert.equal(mayCallDeclaredTool(`${prose} \\u005f`, tools, defaultToolCallParsers), true);
    assert.equal(mayCallDeclaredTool(`${prose} &#95;`, tools, defaultToolCallParsers), true);
  });

  it('still recovers a call whose name only an escape spells, and bare arguments that name no tool', () => {
    assert.deepEqual(
      extractToolCallsFromText('{"name": "get\\u005fweather", "arguments": {"city": "Oslo"}}', tools),
      [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
    );
    const weatherOnly = tools.filter((tool) => tool.name === 'get_weather');
    assert.deepEqual(extractToolCallsFromText('{"city": "Oslo"}', weatherOnly), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
  });

  it('reads every text for a parser a user added, which may name tools its own way', () => {
    // A house dialect that calls the weather tool `@@weather@@`.
    const aliasParser: ToolCallTextParser = {
      name: 'alias',
      detect: (text) => text.includes('@@weather@@'),
      parse: (text) => {
        const start = text.indexOf('@@weather@@');
        return [{ name: 'get_weather', arguments: { city: 'Oslo' }, start, end: start + 11 }];
      },
    };
    const registry = createToolCallParserRegistry();
    registry.register(aliasParser);
    assert.equal(mayCallDeclaredTool('Now @@weather@@', tools, registry.list()), true);
    assert.deepEqual(extractToolCallsFromText('Now @@weather@@', tools, { parsers: registry }), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
  });
});
