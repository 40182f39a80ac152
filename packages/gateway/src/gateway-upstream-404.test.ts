import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  type CannedAnswer,
  type CannedUpstream,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// An upstream's 404 is "no such model" only when it says so, in the words each model server uses; any other 404
// (a server without the route: a base URL missing `/v1`, a server that does not speak the API) says that the
// upstream has no such route, and which path the gateway asked, instead of blaming the model name.
const answers: Record<string, CannedAnswer> = {
  vllm: {
    status: 404,
    json: {
      object: 'error',
      message: 'The model `vllm` does not exist.',
      type: 'NotFoundError',
      param: null,
      code: 404,
    },
  },
  'ollama-openai': {
    status: 404,
    json: {
      error: {
        message: 'model "ollama-openai" not found, try pulling it first',
        type: 'api_error',
        param: null,
        code: null,
      },
    },
  },
  'ollama-native': { status: 404, json: { error: "model 'ollama-native' not found" } },
  'llama-cpp-router': {
    status: 400,
    json: {
      error: { code: 400, message: "model 'llama-cpp-router' not found", type: 'invalid_request_error' },
    },
  },
  openai: {
    status: 404,
    json: {
      error: {
        message: 'The model `openai` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    },
  },
  'fastapi-no-route': { status: 404, json: { detail: 'Not Found' } },
  'llama-cpp-no-route': {
    status: 404,
    json: { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } },
  },
  'go-no-route': { status: 404, text: '404 page not found', contentType: 'text/plain; charset=utf-8' },
  'nginx-page': {
    status: 404,
    text: '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><center><h1>404 Not Found</h1></center></body></html>',
    contentType: 'text/html',
  },
  'empty-body': { status: 404, text: '' },
};

const table: readonly { readonly model: string; readonly missing: boolean; readonly said: RegExp }[] = [
  { model: 'vllm', missing: true, said: /does not exist/ },
  { model: 'ollama-openai', missing: true, said: /not found, try pulling it first/ },
  { model: 'ollama-native', missing: true, said: /model 'ollama-native' not found/ },
  { model: 'llama-cpp-router', missing: true, said: /model 'llama-cpp-router' not found/ },
  { model: 'openai', missing: true, said: /does not exist or you do not have access/ },
  { model: 'fastapi-no-route', missing: false, said: /its body: \{"detail":"Not Found"\}/ },
  { model: 'llama-cpp-no-route', missing: false, said: /"File Not Found"/ },
  { model: 'go-no-route', missing: false, said: /its body: 404 page not found\)/ },
  { model: 'nginx-page', missing: false, said: /an HTML page/ },
  { model: 'empty-body', missing: false, said: /an empty body/ },
];

describe('an upstream 404: no such model, or no such route', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    upstream = await startCannedUpstream((path, body) =>
      path === '/v1/models'
        ? {
            status: 200,
            json: { object: 'list', data: [{ id: 'served-model', object: 'model', created: 1 }] },
          }
        : (answers[String(body.model)] ?? { status: 500, json: {} }),
    );
    gateway = await startGateway({ upstreams: [{ name: 'local', baseUrl: upstream.baseUrl }] });
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const { model, missing, said } of table) {
    it(`${model}: ${missing ? '404 model_not_found' : '502 upstream_route_not_found, naming the path'}`, async () => {
      const error = await openai.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.APIError, String(error));
      if (missing) {
        assert.ok(error instanceof OpenAI.NotFoundError);
        assert.equal(error.code, 'model_not_found');
        assert.match(error.message, said);
        assert.match(error.message, /The gateway serves: served-model/);
      } else {
        assert.equal(error.status, 502);
        assert.equal(error.code, 'upstream_route_not_found');
        assert.match(error.message, /local answered 404 to POST \/v1\/chat\/completions/);
        assert.match(error.message, /no such route/);
        assert.match(error.message, said);
        assert.doesNotMatch(error.message, /model_not_found|The gateway serves/);
      }
    });
  }

  it('the pass-through routes and the Messages route say the same, each naming its own path', async () => {
    const embeddings = await openai.embeddings
      .create({ model: 'go-no-route', input: 'x' })
      .catch((caught: unknown) => caught);
    assert.ok(embeddings instanceof OpenAI.APIError);
    assert.equal(embeddings.status, 502);
    assert.match(embeddings.message, /POST \/v1\/embeddings/);

    const messages = (model: string) =>
      anthropic.messages
        .create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
    const route = await messages('empty-body');
    assert.ok(route instanceof Anthropic.APIError);
    assert.equal(route.status, 502);
    assert.match(route.message, /POST \/v1\/chat\/completions.*no such route/);
    const unknown = await messages('ollama-openai');
    assert.ok(unknown instanceof Anthropic.NotFoundError);
    assert.match(unknown.message, /not found, try pulling it first/);
  });
});
