import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freeLoopbackPort, startScriptedModelServer } from '../testing/index.ts';
import { collectEvents, lastEvent, textOf } from './__fixtures__/scripted-providers.ts';
import { parseModelString } from './model-config.ts';
import { ModelConfigurationError, ModelUnavailableError } from './model-errors.ts';
import { probeModelEndpoint } from './probe-model-endpoint.ts';
import { resolveLanguageModel } from './resolve-language-model.ts';
import { DEFAULT_LOCAL_MODEL, resolveModelEndpoint } from './resolve-model-endpoint.ts';
import { streamModelStep } from './stream-model-step.ts';

/** A fetch that sends every request to `origin` instead, recording the URLs it was asked for. */
function redirectingFetch(origin: string, asked: string[]): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    asked.push(url.href);
    const target = new URL(origin);
    url.protocol = target.protocol;
    url.host = target.host;
    return fetch(url, init);
  };
}

describe('parseModelString', () => {
  it('reads every provider form', () => {
    assert.deepEqual(parseModelString('openai:gpt-4.1'), { provider: 'openai', model: 'gpt-4.1' });
    assert.deepEqual(parseModelString('anthropic:claude-sonnet-4-5'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    assert.deepEqual(parseModelString('ollama:qwen2.5:7b'), { provider: 'ollama', model: 'qwen2.5:7b' });
    assert.deepEqual(
      parseModelString('openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct'),
      {
        provider: 'openai-compatible',
        model: 'Qwen/Qwen2.5-7B-Instruct',
        baseUrl: 'http://localhost:8000/v1',
      },
    );
    assert.deepEqual(parseModelString('vllm:meta-llama/Llama-3.1-8B'), {
      provider: 'vllm',
      model: 'meta-llama/Llama-3.1-8B',
    });
    assert.deepEqual(parseModelString('lmstudio:qwen2.5-7b-instruct'), {
      provider: 'lmstudio',
      model: 'qwen2.5-7b-instruct',
    });
    assert.deepEqual(parseModelString('llamacpp:local'), { provider: 'llamacpp', model: 'local' });
  });

  it('rejects malformed strings with a typed error', () => {
    for (const bad of [
      'gpt-4.1',
      'nope:model',
      'openai:',
      'openai-compatible:http://x/v1',
      'openai-compatible:ftp://x#m',
    ]) {
      assert.throws(
        () => parseModelString(bad),
        (error) => ModelConfigurationError.isInstance(error),
        bad,
      );
    }
    assert.throws(
      () => parseModelString('openai-compatible:http://user:secret@host/v1#m'),
      (error) => ModelConfigurationError.isInstance(error) && !error.message.includes('secret'),
    );
  });
});

describe('resolveModelEndpoint', () => {
  it('fills in base URLs and key variables per provider', () => {
    const cases: [string, Record<string, string>, string, string | undefined][] = [
      ['openai:gpt-4.1', {}, 'https://api.openai.com/v1', 'OPENAI_API_KEY'],
      [
        'openai:gpt-4.1',
        { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/' },
        'http://127.0.0.1:9/v1',
        'OPENAI_API_KEY',
      ],
      ['anthropic:claude-sonnet-4-5', {}, 'https://api.anthropic.com/v1', 'ANTHROPIC_API_KEY'],
      ['ollama:qwen2.5:7b', {}, 'http://localhost:11434/v1', undefined],
      ['ollama:qwen2.5:7b', { OLLAMA_HOST: '127.0.0.1' }, 'http://127.0.0.1:11434/v1', undefined],
      ['ollama:qwen2.5:7b', { OLLAMA_HOST: 'gpu-box:9999' }, 'http://gpu-box:9999/v1', undefined],
      [
        'ollama:qwen2.5:7b',
        { OLLAMA_HOST: 'https://ollama.example' },
        'https://ollama.example/v1',
        undefined,
      ],
      ['vllm:m', {}, 'http://localhost:8000/v1', 'TOOLBUS_API_KEY'],
      ['lmstudio:m', {}, 'http://localhost:1234/v1', 'TOOLBUS_API_KEY'],
      ['llamacpp:m', {}, 'http://localhost:8080/v1', 'TOOLBUS_API_KEY'],
      ['openai-compatible:http://10.0.0.5:8000/v1#m', {}, 'http://10.0.0.5:8000/v1', 'TOOLBUS_API_KEY'],
    ];
    for (const [spec, env, baseUrl, variable] of cases) {
      const endpoint = resolveModelEndpoint(spec, env);
      assert.equal(endpoint.baseUrl, baseUrl, spec);
      assert.equal(endpoint.apiKeyVariable, variable, spec);
    }
  });

  it('defaults to TOOLBUS_MODEL, then a hosted provider with a key, then the local server on Ollama’s port', () => {
    assert.equal(
      resolveModelEndpoint(undefined, { TOOLBUS_MODEL: 'vllm:x', OPENAI_API_KEY: 'k' }).provider,
      'vllm',
    );
    assert.equal(resolveModelEndpoint(undefined, { OPENAI_API_KEY: 'k' }).provider, 'openai');
    assert.equal(resolveModelEndpoint(undefined, { ANTHROPIC_API_KEY: 'k' }).provider, 'anthropic');
    const fallback = resolveModelEndpoint(undefined, {});
    assert.deepEqual(
      [fallback.provider, fallback.model, fallback.baseUrl, fallback.isDefault],
      ['ollama', DEFAULT_LOCAL_MODEL, 'http://localhost:11434/v1', true],
    );
  });

  it('takes a config object, with its own key variable', () => {
    const endpoint = resolveModelEndpoint(
      { provider: 'vllm', model: 'm', baseUrl: 'http://127.0.0.1:8001/v1', apiKeyEnv: 'MY_VLLM_KEY' },
      {},
    );
    assert.equal(endpoint.baseUrl, 'http://127.0.0.1:8001/v1');
    assert.equal(endpoint.apiKeyVariable, 'MY_VLLM_KEY');
    assert.equal(endpoint.apiKeyRequired, true);
    assert.throws(
      () => resolveModelEndpoint({ provider: 'bogus' as 'openai', model: 'm' }, {}),
      (error) => ModelConfigurationError.isInstance(error),
    );
  });
});

describe('resolveLanguageModel', () => {
  it('names the missing key variable and never a value', () => {
    for (const [spec, variable] of [
      ['openai:gpt-4.1', 'OPENAI_API_KEY'],
      ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
    ] as const) {
      assert.throws(
        () => resolveLanguageModel(spec, { env: { OTHER: 'sk-unrelated-secret' } }),
        (error) =>
          ModelConfigurationError.isInstance(error) &&
          error.variable === variable &&
          error.message.includes(variable) &&
          !error.message.includes('sk-unrelated-secret'),
      );
    }
    assert.throws(
      () => resolveLanguageModel({ provider: 'ollama', model: 'm', apiKeyEnv: 'OLLAMA_KEY' }, { env: {} }),
      (error) => ModelConfigurationError.isInstance(error) && error.variable === 'OLLAMA_KEY',
    );
  });

  it('builds a model for every form that talks to the configured server', async () => {
    const server = await startScriptedModelServer({
      turns: [{ repeat: true, steps: [{ type: 'text', text: 'pong' }] }],
    });
    try {
      const asked: string[] = [];
      const fetch = redirectingFetch(server.url, asked);
      const specs = [
        ['openai:gpt-4.1', { OPENAI_API_KEY: 'k1' }, '/v1/chat/completions', 'gpt-4.1'],
        ['anthropic:claude-sonnet-4-5', { ANTHROPIC_API_KEY: 'k2' }, '/v1/messages', 'claude-sonnet-4-5'],
        ['ollama:qwen2.5:7b', {}, '/v1/chat/completions', 'qwen2.5:7b'],
        [`openai-compatible:${server.url}/v1#served-model`, {}, '/v1/chat/completions', 'served-model'],
        ['vllm:Qwen/Qwen2.5-7B', {}, '/v1/chat/completions', 'Qwen/Qwen2.5-7B'],
        ['lmstudio:qwen2.5-7b', {}, '/v1/chat/completions', 'qwen2.5-7b'],
        ['llamacpp:local', {}, '/v1/chat/completions', 'local'],
        [undefined, {}, '/v1/chat/completions', DEFAULT_LOCAL_MODEL],
      ] as const;
      for (const [spec, env, path, model] of specs) {
        const languageModel = resolveLanguageModel(spec, { env, fetch });
        const events = await collectEvents(
          streamModelStep({ model: languageModel, messages: [{ role: 'user', content: 'ping' }] }),
        );
        assert.equal(textOf(events), 'pong', String(spec));
        const request = server.requests.at(-1);
        assert.equal(request?.path, path, String(spec));
        assert.equal(request?.model, model, String(spec));
      }
      assert.equal(new URL(asked[0] ?? '').origin, 'https://api.openai.com');
      assert.equal(new URL(asked[1] ?? '').origin, 'https://api.anthropic.com');
      assert.equal(new URL(asked[2] ?? '').origin, 'http://localhost:11434');
      assert.equal(new URL(asked[4] ?? '').origin, 'http://localhost:8000');
      assert.equal(new URL(asked[5] ?? '').origin, 'http://localhost:1234');
      assert.equal(new URL(asked[6] ?? '').origin, 'http://localhost:8080');
      assert.equal(new URL(asked[7] ?? '').origin, 'http://localhost:11434');
    } finally {
      await server.close();
    }
  });
});

describe('default model with nothing listening', () => {
  it('probe says what to do', async () => {
    const port = await freeLoopbackPort();
    const asked: string[] = [];
    await assert.rejects(
      probeModelEndpoint({ env: {}, fetch: redirectingFetch(`http://127.0.0.1:${port}`, asked) }),
      (error) =>
        ModelUnavailableError.isInstance(error) &&
        error.message === 'no model answers at http://localhost:11434 — set TOOLBUS_MODEL or start Ollama' &&
        error.code === 'model_unavailable',
    );
    assert.deepEqual(asked, ['http://localhost:11434/v1/models']);
    await assert.rejects(
      probeModelEndpoint({ env: { OLLAMA_HOST: `127.0.0.1:${port}` } }),
      (error) =>
        ModelUnavailableError.isInstance(error) &&
        error.message === `no model answers at http://127.0.0.1:${port} — set TOOLBUS_MODEL or start Ollama`,
    );
  });

  it('probe accepts any HTTP answer', async () => {
    const server = await startScriptedModelServer({ turns: [] });
    try {
      const probe = await probeModelEndpoint({ model: `openai-compatible:${server.url}/v1#m`, env: {} });
      assert.equal(probe.status, 200);
    } finally {
      await server.close();
    }
  });

  it('a model step ends with the same actionable error event after its retries', async () => {
    const port = await freeLoopbackPort();
    const asked: string[] = [];
    const model = resolveLanguageModel(undefined, {
      env: {},
      fetch: redirectingFetch(`http://127.0.0.1:${port}`, asked),
    });
    const events = await collectEvents(
      streamModelStep({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        retryDelayMs: 5,
        maxRetriesBeforeFirstChunk: 1,
      }),
    );
    assert.equal(events.length, 1);
    const last = lastEvent(events);
    assert.ok(last.type === 'error' && ModelUnavailableError.isInstance(last.error));
    assert.equal(
      last.error.message,
      'no model answers at http://localhost:11434 — set TOOLBUS_MODEL or start Ollama',
    );
    assert.equal(asked.length, 2);
  });
});
