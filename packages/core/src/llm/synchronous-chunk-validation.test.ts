// The OpenAI-compatible model validates stream chunks with its own zod schema, synchronously: same parts, same
// errors as the provider's own asynchronous validation, over a real loopback model server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type LoopbackHttpServer, startLoopbackHttpServer } from '../testing/index.ts';
import { DirectSseLanguageModel } from './direct-sse-language-model.ts';
import { LazyLanguageModel } from './lazy-language-model.ts';
import { resolveLanguageModel } from './resolve-language-model.ts';
import { validateChunksSynchronously } from './synchronous-chunk-validation.ts';

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

/** What the model server answers, by the model name asked for. */
const bodies: Record<string, string> = {
  good: `${chunk({ role: 'assistant', content: 'Hel' }, { unknown_field: 1 })}${chunk({ content: 'lo' })}${chunk({ tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] })}data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\ndata: [DONE]\n\n`,
  bad: `${chunk({ content: 'Hi' })}data: {"id":"c","choices":"not a list"}\n\ndata: {"error":{"message":"upstream fell over","type":"server_error"}}\n\ndata: [DONE]\n\n`,
};

let server: LoopbackHttpServer;
before(async () => {
  server = await startLoopbackHttpServer((request, response) => {
    const model = (JSON.parse(request.body) as { model: string }).model;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(bodies[model]);
  });
});
after(() => server.close());

async function parts(model: LanguageModelV4): Promise<unknown[]> {
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
  });
  const out: unknown[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) {
    // Errors are compared by what a reader sees of them: their class and message.
    out.push(
      part.type === 'error'
        ? { type: 'error', name: (part.error as Error).name, message: (part.error as Error).message }
        : part,
    );
  }
  return out;
}

const providerModel = (name: string) =>
  createOpenAICompatible({ name: 'local', baseURL: `${server.origin}/v1`, includeUsage: true }).chatModel(
    name,
  );

describe('validateChunksSynchronously', () => {
  for (const name of ['good', 'bad']) {
    it(`${name} stream: the same parts as the provider's own validation`, async () => {
      const patched = providerModel(name);
      validateChunksSynchronously(patched);
      const expected = await parts(providerModel(name));
      assert.ok(
        expected.some(
          (part) => (part as { type: string }).type === (name === 'good' ? 'tool-call' : 'error'),
        ),
      );
      assert.deepEqual(await parts(patched), expected);
    });
  }

  it('validates without a promise, and the resolver applies it to OpenAI-compatible models', async () => {
    const model = resolveLanguageModel(`openai-compatible:${server.origin}/v1#good`);
    assert.ok(model instanceof LazyLanguageModel);
    const direct = await model.model();
    assert.ok(direct instanceof DirectSseLanguageModel, 'read directly (direct-sse-language-model.ts)');
    const real = direct.providerModel as unknown as { chunkSchema: { validate(value: unknown): unknown } };
    const result = real.chunkSchema.validate({ id: 'c', choices: [] });
    assert.ok(!(result instanceof Promise), 'a plain result, no promise');
    assert.equal((result as { success: boolean }).success, true);
    assert.equal((real.chunkSchema.validate({ choices: 'no' }) as { success: boolean }).success, false);
  });

  it('leaves a model without a zod chunk schema alone', () => {
    const model = { chunkSchema: { validate: () => 'mine' } };
    validateChunksSynchronously(model);
    assert.equal(model.chunkSchema.validate(), 'mine');
  });
});
