import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { chunkText } from '@toolbus/core/testing';
import OpenAI from 'openai';
import {
  type CannedAnswer,
  type CannedUpstream,
  chunk,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { hermesCall, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// Real clients that send model names no upstream serves (Claude Code's `claude-…`, a user's `gpt-4o`), the model
// routes (`GET /v1/models/{id}`) and the routes passed through (`/v1/completions`, `/v1/embeddings`), against an
// upstream that, as vLLM does, serves two models and answers any other name with a 404.
const SERVED = ['qwen3-coder', 'nomic-embed-text'];
const vector = [0.25, -0.5, 0.75];

function answerFor(path: string, body: Record<string, unknown>): CannedAnswer {
  if (path === '/v1/models')
    return {
      status: 200,
      json: { object: 'list', data: SERVED.map((id) => ({ id, object: 'model', created: 7 })) },
    };
  const model = String(body.model);
  if (!SERVED.includes(model))
    return {
      status: 404,
      json: {
        object: 'error',
        message: `The model \`${model}\` does not exist.`,
        type: 'NotFoundError',
        code: 404,
      },
    };
  const extra = { model, id: 'cmpl-1', created: 1 };
  if (path === '/v1/embeddings') {
    // The openai client asks for base64 unless told otherwise, and decodes it into floats itself.
    const embedding =
      body.encoding_format === 'base64'
        ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
        : vector;
    return {
      status: 200,
      json: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding }],
        model,
        usage: { prompt_tokens: 2, total_tokens: 2 },
      },
    };
  }
  if (path === '/v1/completions') {
    const text = ['def add(a, b):', '\n    return a + b'];
    const piece = (value: string, finish: string | null) => ({
      ...extra,
      object: 'text_completion',
      choices: [{ index: 0, text: value, logprobs: null, finish_reason: finish }],
    });
    if (String(body.prompt).includes('[hold]')) return { events: [piece('def', null)], hold: true };
    if (body.stream === true)
      return { events: [piece(text[0] as string, null), piece(text[1] as string, 'stop')] };
    return {
      status: 200,
      json: {
        ...piece(text.join(''), 'stop'),
        usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 },
      },
    };
  }
  const call = hermesCall('Oslo');
  if (body.stream === true)
    return {
      events: [
        chunk({ role: 'assistant', content: '' }, { extra }),
        ...chunkText(call, 9).map((piece) => chunk({ content: piece }, { extra })),
        chunk({}, { finish: 'stop', extra }),
      ],
    };
  return {
    status: 200,
    json: {
      ...extra,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: call }, finish_reason: 'stop' }],
    },
  };
}

describe('model aliases and the model routes', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let withDefault: RunningGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  const lastBody = (path: string) => upstream.bodies.filter((entry) => entry.path === path).at(-1)?.body;

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    const upstreams = [{ name: 'vllm', baseUrl: upstream.baseUrl }];
    gateway = await startGateway({
      upstreams,
      models: {
        'claude-*': 'qwen3-coder',
        'gpt-4o': 'qwen3-coder',
        'text-embedding-3-small': 'nomic-embed-text',
      },
    });
    withDefault = await startGateway({ upstreams, models: { '*': 'qwen3-coder' } });
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await withDefault.close();
    await upstream.close();
  });

  it('the Anthropic SDK with a claude-… name reaches the served model, and its answer names the model it asked for', async () => {
    const request = {
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 256,
      tools: [{ name: 'get_weather', input_schema: weatherTool.function.parameters }],
      messages: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
    };
    const { data: message, response } = await anthropic.messages.create(request).withResponse();
    assert.equal(lastBody('/v1/chat/completions')?.model, 'qwen3-coder');
    assert.equal(message.model, 'claude-sonnet-4-5-20250929');
    assert.equal(response.headers.get('x-toolbus-model'), 'qwen3-coder');
    assert.equal(message.stop_reason, 'tool_use');
    const streamed = await anthropic.messages
      .stream({ ...request, model: 'claude-3-5-haiku-20241022' })
      .finalMessage();
    assert.equal(streamed.model, 'claude-3-5-haiku-20241022');
    assert.deepEqual(
      streamed.content.filter((block) => block.type === 'tool_use').map((block) => block.input),
      [{ city: 'Oslo' }],
    );
  });

  it('the openai client with an aliased name gets every chunk named as it asked, the call recovered', async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({
        model: 'gpt-4o',
        stream: true,
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'Oslo?' }],
      })
      .withResponse();
    assert.equal(response.headers.get('x-toolbus-model'), 'qwen3-coder');
    const models = new Set<string>();
    const names: string[] = [];
    for await (const part of stream) {
      models.add(part.model);
      for (const call of part.choices[0]?.delta.tool_calls ?? [])
        if (call.function?.name) names.push(call.function.name);
    }
    assert.deepEqual([...models], ['gpt-4o']);
    assert.deepEqual(names, ['get_weather']);
    assert.equal(lastBody('/v1/chat/completions')?.model, 'qwen3-coder');
    const whole = await openai.chat.completions.create({
      model: 'gpt-4o',
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Oslo?' }],
    });
    assert.equal(whole.model, 'gpt-4o');
    assert.equal(whole.choices[0]?.message.tool_calls?.length, 1);
  });

  it('an unknown name stays a 404 model_not_found that names the models served; a "*" default takes it', async () => {
    const refused = await openai.chat.completions
      .create({ model: 'llama-9', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.NotFoundError);
    assert.equal(refused.code, 'model_not_found');
    assert.match(
      refused.message,
      /The gateway serves: qwen3-coder, nomic-embed-text, gpt-4o, text-embedding-3-small/,
    );
    assert.match(refused.message, /aliases: claude-\* → qwen3-coder/);
    const viaDefault = new OpenAI({ baseURL: `${withDefault.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await viaDefault.chat.completions.create({
      model: 'llama-9',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(answer.model, 'llama-9');
    assert.equal(lastBody('/v1/chat/completions')?.model, 'qwen3-coder');
    // The default never takes a model from the upstream that serves it (Open WebUI's pick among the listed ones).
    const served = await viaDefault.embeddings.create({ model: 'nomic-embed-text', input: 'hi' });
    assert.equal(lastBody('/v1/embeddings')?.model, 'nomic-embed-text');
    assert.equal(served.model, 'nomic-embed-text');
  });

  it('lists exact aliases as models, and retrieves served models, aliases and pattern names (OpenAI and Anthropic shapes)', async () => {
    const ids = (await openai.models.list()).data.map((model) => model.id);
    assert.deepEqual(ids, ['qwen3-coder', 'nomic-embed-text', 'gpt-4o', 'text-embedding-3-small']);
    assert.deepEqual(await openai.models.retrieve('qwen3-coder'), {
      id: 'qwen3-coder',
      object: 'model',
      created: 7,
      owned_by: 'vllm',
    });
    assert.deepEqual(await openai.models.retrieve('gpt-4o'), {
      id: 'gpt-4o',
      object: 'model',
      created: 7,
      owned_by: 'vllm',
      parent: 'qwen3-coder',
    });
    // An alias names the served model that answers it (`parent`, as vLLM names a LoRA adapter's base model).
    const listed = (await openai.models.list()).data as (OpenAI.Model & { parent?: string })[];
    assert.deepEqual(
      listed.map((model) => [model.id, model.parent]),
      [
        ['qwen3-coder', undefined],
        ['nomic-embed-text', undefined],
        ['gpt-4o', 'qwen3-coder'],
        ['text-embedding-3-small', 'nomic-embed-text'],
      ],
    );
    assert.equal(
      ((await openai.models.retrieve('claude-opus-4-1')) as OpenAI.Model & { parent?: string }).parent,
      'qwen3-coder',
    );
    assert.equal((await openai.models.retrieve('claude-opus-4-1')).id, 'claude-opus-4-1');
    const missing = await openai.models.retrieve('llama-9').catch((error: unknown) => error);
    assert.ok(missing instanceof OpenAI.NotFoundError);
    assert.match(missing.message, /"llama-9" does not exist here\. The gateway serves: qwen3-coder/);
    const claude = await anthropic.models.retrieve('claude-sonnet-4-5');
    assert.deepEqual(claude, {
      type: 'model',
      id: 'claude-sonnet-4-5',
      display_name: 'claude-sonnet-4-5',
      created_at: '1970-01-01T00:00:07.000Z',
    });
    const notThere = await anthropic.models.retrieve('llama-9').catch((error: unknown) => error);
    assert.ok(notThere instanceof Anthropic.NotFoundError);
    // A served name with a slash (Hugging Face ids) is one id, percent-encoded by the client or not.
    const slashed = await fetch(`${withDefault.url}/v1/models/Qwen/Qwen3-8B`);
    assert.equal(((await slashed.json()) as { id: string }).id, 'Qwen/Qwen3-8B');
  });

  it('passes /v1/completions through to the served model, streamed and not, named as the client asked', async () => {
    const whole = await openai.completions.create({ model: 'gpt-4o', prompt: 'def add', max_tokens: 16 });
    assert.equal(whole.choices[0]?.text, 'def add(a, b):\n    return a + b');
    assert.equal(whole.model, 'gpt-4o');
    assert.equal(lastBody('/v1/completions')?.model, 'qwen3-coder');
    const stream = await openai.completions.create({ model: 'qwen3-coder', prompt: 'def add', stream: true });
    let text = '';
    for await (const part of stream) {
      assert.equal(part.model, 'qwen3-coder');
      text += part.choices[0]?.text ?? '';
    }
    assert.equal(text, 'def add(a, b):\n    return a + b');
  });

  it('passes /v1/embeddings through (the openai client’s base64 too), and maps an unknown model to 404', async () => {
    const embedded = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
    assert.deepEqual(embedded.data[0]?.embedding, vector);
    assert.equal(embedded.model, 'text-embedding-3-small');
    assert.equal(lastBody('/v1/embeddings')?.model, 'nomic-embed-text');
    const floats = await openai.embeddings.create({
      model: 'nomic-embed-text',
      input: 'hi',
      encoding_format: 'float',
    });
    assert.deepEqual(floats.data[0]?.embedding, vector);
    const unknown = await openai.embeddings
      .create({ model: 'ada-2', input: 'hi' })
      .catch((error: unknown) => error);
    assert.ok(unknown instanceof OpenAI.NotFoundError);
    assert.equal(unknown.code, 'model_not_found');
    assert.match(
      unknown.message,
      /vllm answered 404: The model `ada-2` does not exist\. The gateway serves:/,
    );
  });

  it('cancels a streamed completion upstream when the client goes away', async () => {
    const before = upstream.cancelled();
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(`${gateway.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      request.on('response', (response) => response.once('data', () => request.destroy() && resolve()));
      request.on('error', reject);
      request.end(JSON.stringify({ model: 'qwen3-coder', prompt: '[hold]', stream: true }));
    });
    for (let wait = 0; upstream.cancelled() === before && wait < 200; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(upstream.cancelled(), before + 1);
  });
});

describe('the routes passed through, behind the gateway’s keys and caps', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    gateway = await startGateway({
      upstreams: [{ name: 'vllm', baseUrl: upstream.baseUrl }],
      authenticate: async (key) => (key === 'good-key' ? { id: 'k1' } : undefined),
      maxResponseBytes: 64,
    });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('refuses a missing key, and a too-large answer is a 502, in OpenAI’s error shape', async () => {
    const body = JSON.stringify({ model: 'nomic-embed-text', input: 'hi', encoding_format: 'float' });
    const post = (key: string) =>
      fetch(`${gateway.url}/v1/embeddings`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
    const refused = await post('bad-key');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    const tooLarge = await post('good-key');
    assert.equal(tooLarge.status, 502);
    assert.match(
      ((await tooLarge.json()) as { error: { message: string } }).error.message,
      /larger than 64 bytes/,
    );
    const model = await fetch(`${gateway.url}/v1/models/nomic-embed-text`);
    assert.equal(model.status, 401);
  });
});
