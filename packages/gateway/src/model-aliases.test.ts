import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatewayConfigSchema } from './gateway-options.ts';
import { ModelAliases, withModelName } from './model-aliases.ts';

describe('model aliases', () => {
  const aliases = new ModelAliases({
    'claude-*': 'qwen3-coder',
    '*': 'llama3',
    'claude-3-5-haiku*': 'qwen3-4b',
    'claude-opus-4-1': 'qwen3-235b',
    'Qwen/*': 'qwen3-coder',
  });

  it('takes the exact name first, then the pattern that spells out the most, then "*"', () => {
    assert.equal(aliases.resolve('claude-opus-4-1').served, 'qwen3-235b');
    assert.equal(aliases.resolve('claude-3-5-haiku-20241022').served, 'qwen3-4b');
    assert.equal(aliases.resolve('claude-sonnet-4-5').served, 'qwen3-coder');
    assert.deepEqual(aliases.resolve('gpt-4o'), { asked: 'gpt-4o', served: 'llama3', alias: '*' });
    // Pattern characters are literal: the dot and the slash match only themselves.
    assert.equal(aliases.resolve('Qwen/Qwen3-8B').alias, 'Qwen/*');
    assert.deepEqual(new ModelAliases({ 'a.b*': 'x' }).resolve('aXb-1'), {
      asked: 'aXb-1',
      served: 'aXb-1',
      alias: undefined,
    });
  });

  it('leaves a name an upstream serves to it, unless an exact alias names it', () => {
    const served = new Set(['llama3', 'claude-local', 'claude-opus-4-1']);
    assert.deepEqual(aliases.resolve('llama3', served), {
      asked: 'llama3',
      served: 'llama3',
      alias: undefined,
    });
    assert.equal(aliases.resolve('claude-local', served).served, 'claude-local');
    assert.equal(aliases.resolve('claude-opus-4-1', served).served, 'qwen3-235b');
    assert.equal(aliases.patternMatches('claude-opus-4-1'), false);
    assert.equal(aliases.patternMatches('llama3'), true);
  });

  it('sends a name no alias matches on as it is, and is empty without aliases', () => {
    const none = new ModelAliases();
    assert.equal(none.empty, true);
    assert.deepEqual(none.resolve('qwen3'), { asked: 'qwen3', served: 'qwen3', alias: undefined });
  });

  it('refuses a bad pattern or target in words, in the class and in the config schema alike', () => {
    assert.throws(() => new ModelAliases({ 'claude **': 'x' }), /models: expected a model name or pattern/);
    assert.throws(
      () => new ModelAliases({ 'claude-*': 'qwen*' }),
      /models\.claude-\*: expected a served model name/,
    );
    const parsed = gatewayConfigSchema.safeParse({
      upstreams: [{ name: 'a', baseUrl: 'http://127.0.0.1:1/v1' }],
      models: { 'claude**': 'qwen3', ok: '' },
    });
    assert.deepEqual(
      parsed.error?.issues.map((issue) => issue.path.join('.')),
      ['models.ok', 'models.claude**'],
    );
  });

  it('renames the model member of answers and chunks, never text that only looks like one', () => {
    const chunk =
      '{"id":"c","model":"qwen3-coder","choices":[{"delta":{"content":"say \\"model\\":\\"x\\""}}]}';
    const renamed = withModelName(chunk, 'claude-"quoted"');
    assert.deepEqual(JSON.parse(renamed), {
      ...JSON.parse(chunk),
      model: 'claude-"quoted"',
    });
    assert.equal(withModelName('{"model" : "a"}', 'b'), '{"model":"b"}');
  });
});
