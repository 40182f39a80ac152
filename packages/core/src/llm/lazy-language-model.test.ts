// A resolved model names its provider and model before its package loads: those names must be the ones the real
// provider model reports, because errors and telemetry print them before (or without) the first call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LazyLanguageModel } from './lazy-language-model.ts';
import { resolveLanguageModel } from './resolve-language-model.ts';

describe('resolveLanguageModel: the provider package loads on the first call', () => {
  for (const spec of [
    'openai:gpt-4.1',
    'anthropic:claude-sonnet-4-5',
    'ollama:qwen2.5:7b',
    'openai-compatible:http://127.0.0.1:9/v1#local',
  ]) {
    it(`${spec}: the names the real model reports`, async () => {
      const model = resolveLanguageModel(spec, { env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' } });
      assert.ok(model instanceof LazyLanguageModel);
      const real = await model.model();
      assert.equal(model.provider, real.provider);
      assert.equal(model.modelId, real.modelId);
      assert.equal(model.specificationVersion, real.specificationVersion);
      assert.deepEqual(await model.supportedUrls, await real.supportedUrls);
      assert.equal(await model.model(), real, 'made once');
    });
  }

  it('a failed load fails the call and is tried again on the next one', async () => {
    let attempts = 0;
    const model = new LazyLanguageModel({
      provider: 'scripted.chat',
      modelId: 'm',
      load: async () => {
        attempts += 1;
        throw new Error(`load ${attempts} failed`);
      },
    });
    await assert.rejects(model.doStream({ prompt: [] }), /load 1 failed/);
    await assert.rejects(model.doGenerate({ prompt: [] }), /load 2 failed/);
  });
});
