// The direct SSE reader makes the same stream parts as the provider package's own stream, over real HTTP: recorded
// server streams cut across reads, scripted turns (text, reasoning, parallel tool calls), HTTP errors, a connection
// dropped mid-stream and an abort, with the global fetch and with the server's node:http fetch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { createNodeHttpFetch } from '../net/node-http-fetch.ts';
import {
  type LoopbackHttpServer,
  type ScriptedModelServer,
  type ScriptedStep,
  startLoopbackHttpServer,
  startScriptedModelServer,
} from '../testing/index.ts';
import { openAiCompatibleRecordings, writesOf } from './__fixtures__/openai-compatible-recordings.ts';
import { takeDirectParts } from './direct-part-tap.ts';
import { DirectSseLanguageModel } from './direct-sse-language-model.ts';
import { directSseBodyOf } from './direct-sse-part-stream.ts';
import { LazyLanguageModel } from './lazy-language-model.ts';
import { resolveLanguageModel } from './resolve-language-model.ts';

const scripted: Record<string, readonly ScriptedStep[]> = {
  text: [
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ', wörld' },
    { type: 'finish', usage: { inputTokens: 3, outputTokens: 2 } },
  ],
  reasoning: [
    { type: 'reasoning', text: 'thinking' },
    { type: 'reasoning', text: ' hard' },
    { type: 'text', text: 'Done.' },
  ],
  'parallel tool calls': [
    { type: 'tool-call-start', index: 0, id: 'a', name: 'search' },
    { type: 'tool-call-start', index: 1, id: 'b', name: 'fetch' },
    { type: 'tool-call-delta', index: 1, argumentsDelta: '{"url":' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":"x' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '"}' },
    { type: 'tool-call-delta', index: 1, argumentsDelta: '"http://a"}' },
  ],
  'error body 400': [{ type: 'http-error', status: 400, message: 'messages: bad request' }],
  'error body 429': [{ type: 'http-error', status: 429, message: 'slow down' }],
  'error body 503': [{ type: 'http-error', status: 503 }],
  long: Array.from({ length: 600 }, (_, index) => ({ type: 'text', text: `t${index} ` }) as const),
  'cut stream': [{ type: 'text', text: 'par' }, { type: 'delay', ms: 20 }, { type: 'drop' }],
};

let recordings: LoopbackHttpServer;
let model: ScriptedModelServer;
before(async () => {
  recordings = await startLoopbackHttpServer(async (request, response) => {
    const name = (JSON.parse(request.body) as { model: string }).model;
    const recording = openAiCompatibleRecordings[name];
    assert.ok(recording !== undefined, name);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r-1' });
    for (const write of writesOf(recording)) {
      response.write(write);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    response.end();
  });
  model = await startScriptedModelServer({
    handler: (request) =>
      scripted[request.model ?? ''] ?? [
        { type: 'text', text: 'abort me' },
        { type: 'delay', ms: 10_000 },
      ],
  });
});
after(async () => {
  await recordings.close();
  await model.close();
});

// The global fetch's body is read through its web stream; the server's node:http fetch hands over its reads.
const fetches: Record<string, FetchFunction | undefined> = {
  'global fetch': undefined,
  'node:http fetch': createNodeHttpFetch(),
};

/** The provider package's own model, with the settings `resolveLanguageModel` gives it. */
function providerModel(baseURL: string, fetch: FetchFunction | undefined): (id: string) => LanguageModelV4 {
  const provider = createOpenAICompatible({
    baseURL,
    name: 'openai-compatible',
    includeUsage: true,
    apiKey: 'k',
    ...omitUndefined({ fetch }),
  });
  return (id) => provider.chatModel(id);
}

function directModel(baseURL: string, fetch: FetchFunction | undefined): (id: string) => LanguageModelV4 {
  return (id) =>
    resolveLanguageModel(`openai-compatible:${baseURL}#${id}`, {
      env: { TOOLBUS_API_KEY: 'k' },
      ...omitUndefined({ fetch }),
    });
}

/** An error as a reader sees it: class, message, and what decides a retry. */
function seen(error: unknown): unknown {
  const fields = error as {
    name?: string;
    message?: string;
    statusCode?: unknown;
    isRetryable?: unknown;
    responseBody?: unknown;
  };
  return {
    name: fields.name,
    message: fields.message,
    statusCode: fields.statusCode,
    isRetryable: fields.isRetryable,
    responseBody: fields.responseBody,
  };
}

/** Everything a caller of `doStream` sees: parts (errors by what they say), a rejection, the request and headers. */
async function run(
  model: LanguageModelV4,
  options: {
    scripted?: boolean;
    abortAfterFirstText?: boolean;
    /** Waits a timer turn every this many parts: a reader behind the socket. */
    slowEvery?: number;
    /** Takes the parts as the turn's loop does (takeDirectParts) instead of reading the stream. */
    take?: boolean;
    call?: Partial<Parameters<LanguageModelV4['doStream']>[0]>;
  } = {},
): Promise<{ direct: string | undefined; seen: unknown }> {
  const controller = new AbortController();
  let result: Awaited<ReturnType<LanguageModelV4['doStream']>>;
  try {
    result = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      tools: [{ type: 'function', name: 'search', inputSchema: { type: 'object' } }],
      abortSignal: controller.signal,
      ...options.call,
    });
  } catch (error) {
    return { direct: undefined, seen: { thrown: seen(error) } };
  }
  const parts: unknown[] = [];
  let failure: unknown;
  const add = (part: LanguageModelV4StreamPart): Promise<void> | undefined => {
    if (part.type === 'error') parts.push({ type: 'error', error: seen(part.error) });
    // The scripted server numbers and times each answer: only their presence is compared.
    else if (part.type === 'response-metadata' && options.scripted === true)
      parts.push({ ...part, id: typeof part.id, timestamp: typeof part.timestamp });
    else parts.push(part);
    if (options.abortAfterFirstText === true && part.type === 'text-delta') controller.abort();
    if (options.slowEvery !== undefined && parts.length % options.slowEvery === 0) {
      return new Promise((resolve) => setTimeout(resolve, 5));
    }
    return undefined;
  };
  const direct = directSseBodyOf(result.stream);
  if (options.take === true) {
    await new Promise<void>((resolve) => {
      const taken = takeDirectParts(result.stream, {
        part: add,
        end: resolve,
        error(error) {
          failure = seen(error);
          resolve();
        },
      });
      assert.ok(taken, 'the parts can be taken');
    });
  } else {
    const reader = result.stream.getReader();
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        await add(next.value);
      }
    } catch (error) {
      failure = seen(error);
    }
  }
  return {
    direct,
    seen: {
      parts,
      failure,
      request: result.request?.body,
      headers: result.response?.headers?.['x-request-id'],
    },
  };
}

describe('DirectSseLanguageModel: the same parts as the provider package', () => {
  it('is what resolveLanguageModel makes of an OpenAI-compatible model', async () => {
    const lazy = resolveLanguageModel(`openai-compatible:${recordings.origin}/v1#m`, { env: {} });
    assert.ok(lazy instanceof LazyLanguageModel);
    assert.ok((await lazy.model()) instanceof DirectSseLanguageModel);
  });

  for (const [fetchName, fetch] of Object.entries(fetches)) {
    describe(fetchName, () => {
      const body = fetch === undefined ? 'web stream' : 'node:http';
      for (const name of Object.keys(openAiCompatibleRecordings)) {
        it(`recorded: ${name}`, async () => {
          const base = `${recordings.origin}/v1`;
          const expected = await run(providerModel(base, fetch)(name));
          const actual = await run(directModel(base, fetch)(name));
          assert.equal(actual.direct, body, 'read directly');
          assert.deepEqual(actual.seen, expected.seen);
          if (name.startsWith('hostile keys')) {
            // Four refused chunks (an error part each), the text of the others, and no prototype reached.
            const { parts } = actual.seen as { parts: { type: string; delta?: string }[] };
            assert.equal(parts.filter((part) => part.type === 'error').length, 4);
            const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
            assert.equal(text, 'a constructor, __proto__ and \\u005fend');
            assert.equal(({} as { polluted?: unknown }).polluted, undefined);
          }
        });
      }
      for (const name of Object.keys(scripted)) {
        it(`scripted: ${name}`, async () => {
          const base = `${model.url}/v1`;
          const expected = await run(providerModel(base, fetch)(name), { scripted: true });
          const actual = await run(directModel(base, fetch)(name), { scripted: true });
          assert.equal(
            actual.direct,
            name.startsWith('error body') ? undefined : body,
            'read directly when the answer is a stream',
          );
          assert.deepEqual(actual.seen, expected.seen);
          // Each case shows what it is named for: the provider's error thrown, the broken body's rejection.
          const { thrown, failure } = actual.seen as { thrown?: unknown; failure?: unknown };
          if (name.startsWith('error body'))
            assert.equal((thrown as { name: string }).name, 'AI_APICallError');
          if (name === 'cut stream') assert.equal((failure as { name: string }).name, 'AI_APICallError');
        });
      }
      it('an abort mid-stream ends both the same way and closes the connection', async () => {
        const base = `${model.url}/v1`;
        const options = { scripted: true, abortAfterFirstText: true };
        const expected = await run(providerModel(base, fetch)('abort'), options);
        const actual = await run(directModel(base, fetch)('abort'), options);
        assert.equal(actual.direct, body);
        assert.deepEqual(actual.seen, expected.seen);
        assert.equal((actual.seen as { failure: { name: string } }).failure.name, 'AbortError');
        const outcomes = await Promise.all(model.requests.slice(-2).map((request) => model.settled(request)));
        assert.deepEqual(outcomes, ['client-closed', 'client-closed']);
      });
    });
  }

  describe('node:http fetch, the parts taken as the turn loop takes them', () => {
    const fetch = createNodeHttpFetch();
    for (const name of Object.keys(openAiCompatibleRecordings)) {
      it(`recorded: ${name}`, async () => {
        const base = `${recordings.origin}/v1`;
        const expected = await run(providerModel(base, fetch)(name));
        const actual = await run(directModel(base, fetch)(name), { take: true });
        assert.deepEqual(actual.seen, expected.seen);
      });
    }
    for (const name of Object.keys(scripted).filter((name) => !name.startsWith('error body'))) {
      it(`scripted: ${name}`, async () => {
        const base = `${model.url}/v1`;
        const expected = await run(providerModel(base, fetch)(name), { scripted: true });
        const actual = await run(directModel(base, fetch)(name), { scripted: true, take: true });
        assert.deepEqual(actual.seen, expected.seen);
      });
    }
    it('an abort mid-stream ends both the same way and closes the connection', async () => {
      const base = `${model.url}/v1`;
      const options = { scripted: true, abortAfterFirstText: true };
      const expected = await run(providerModel(base, fetch)('abort'), options);
      const actual = await run(directModel(base, fetch)('abort'), { ...options, take: true });
      assert.deepEqual(actual.seen, expected.seen);
      const outcomes = await Promise.all(model.requests.slice(-2).map((request) => model.settled(request)));
      assert.deepEqual(outcomes, ['client-closed', 'client-closed']);
    });
    it('a taker far behind the socket gets every part, in order', async () => {
      const base = `${model.url}/v1`;
      const expected = await run(providerModel(base, fetch)('long'), { scripted: true });
      const actual = await run(directModel(base, fetch)('long'), {
        scripted: true,
        slowEvery: 50,
        take: true,
      });
      assert.deepEqual(actual.seen, expected.seen);
      assert.ok((actual.seen as { parts: unknown[] }).parts.length > 600);
    });
  });

  it('a reader far behind the socket gets every part, in order', async () => {
    const base = `${model.url}/v1`;
    const fetch = createNodeHttpFetch();
    const expected = await run(providerModel(base, fetch)('long'), { scripted: true });
    const actual = await run(directModel(base, fetch)('long'), { scripted: true, slowEvery: 50 });
    assert.equal(actual.direct, 'node:http');
    assert.deepEqual(actual.seen, expected.seen);
    assert.ok((actual.seen as { parts: unknown[] }).parts.length > 600);
  });

  it("carries the provider's warnings and files metadata under the key the call's options use", async () => {
    const base = `${recordings.origin}/v1`;
    const call = { topK: 3, providerOptions: { openaiCompatible: { user: 'u-1' } } };
    const expected = await run(providerModel(base, undefined)('openai text with usage'), { call });
    const actual = await run(directModel(base, undefined)('openai text with usage'), { call });
    assert.equal(actual.direct, 'web stream');
    assert.deepEqual(actual.seen, expected.seen);
    const parts = (actual.seen as { parts: LanguageModelV4StreamPart[] }).parts;
    const start = parts.find((part) => part.type === 'stream-start');
    assert.deepEqual(start?.type === 'stream-start' ? start.warnings : [], [
      { type: 'unsupported', feature: 'topK' },
    ]);
    const finish = parts.find((part) => part.type === 'finish');
    assert.deepEqual(Object.keys((finish?.type === 'finish' && finish.providerMetadata) || {}), [
      'openaiCompatible',
    ]);
  });

  it('sends the request the provider builds, and reads raw chunks through the provider', async () => {
    const base = `${recordings.origin}/v1`;
    const direct = directModel(base, undefined)('openai text with usage');
    const raw = await direct.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      includeRawChunks: true,
    });
    assert.equal(directSseBodyOf(raw.stream), undefined);
    const types = new Set<string>();
    for await (const part of raw.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>)
      types.add(part.type);
    assert.ok(types.has('raw'));
    const sent = recordings.received.at(-1);
    assert.deepEqual(JSON.parse(sent?.body ?? '{}').stream_options, { include_usage: true });
  });
});
