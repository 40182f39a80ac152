import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { defaultModelProfiles, findModelProfile } from './model-profiles.ts';
import { defaultToolCallParsers } from './tool-call-parser-registry.ts';

describe('model profiles', () => {
  it('match model ids as providers and local servers write them', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['qwen2.5:7b', 'qwen'],
      ['Qwen/Qwen2.5-Coder-32B-Instruct', 'qwen'],
      ['qwen3-coder:30b', 'qwen3-coder'],
      ['mistral-small3.2:24b', 'mistral'],
      ['mistralai/Devstral-Small-2507', 'mistral'],
      ['llama3.1:8b', 'llama-3.1'],
      ['meta-llama/Llama-3.2-3B-Instruct', 'llama-3.2'],
      ['llama4:scout', 'llama-4'],
      ['hermes3:8b', 'hermes'],
      ['gemma3:12b', 'gemma'],
      ['granite3.3:8b', 'granite'],
      ['deepseek-r1:14b', 'deepseek'],
      ['kimi-k2', 'kimi'],
      ['glm-4.5-air', 'glm'],
      ['gpt-oss:20b', 'gpt-oss'],
      ['nvidia/Llama-3.1-Nemotron-Nano-8B-v1', 'nemotron'],
    ];
    for (const [id, family] of cases) assert.equal(findModelProfile(id)?.family, family, id);
    assert.equal(findModelProfile('some-new-model'), undefined, 'unknown models are auto-detected');
    assert.equal(findModelProfile(undefined), undefined);
  });

  it('name only registered dialects', () => {
    const names = new Set(defaultToolCallParsers.map((parser) => parser.name));
    for (const profile of defaultModelProfiles) {
      for (const dialect of profile.dialects) assert.ok(names.has(dialect), `${profile.family}: ${dialect}`);
    }
  });

  it("try the family's dialects first: a Qwen answer is not also read as a pythonic call", () => {
    // A Hermes-format call, with an example of a pythonic call in the prose after it.
    const text =
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\nOther models would write:\nget_time(tz="CET")';
    assert.equal(extractToolCallsFromText(text, tools).length, 2, 'every dialect at once reads both');
    const qwen = findModelProfile('qwen2.5:7b')!;
    assert.deepEqual(extractToolCallsFromText(text, tools, { preferredDialects: qwen.dialects }), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
  });

  it("fall back to every dialect when the family's find nothing", () => {
    const qwen = findModelProfile('qwen2.5:7b')!;
    assert.deepEqual(
      extractToolCallsFromText('[get_time(tz="CET")]', tools, { preferredDialects: qwen.dialects }),
      [{ name: 'get_time', arguments: { tz: 'CET' } }],
    );
  });
});
