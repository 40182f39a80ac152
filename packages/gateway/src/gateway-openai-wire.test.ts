import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chunkText } from '@toolbus/core/testing';
import OpenAI from 'openai';
import {
  type CannedAnswer,
  type CannedUpstream,
  chunk,
  sseEvents,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { hermesCall, markupPattern, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// The Chat Completions wire as OpenAI's reference documents it, field by field, against an upstream that writes
// the shapes real servers write (several choices, usage with the finish as llama.cpp sends it, logprobs).
const hermes = hermesCall;
const timeCall = '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';
const twoCalls = `${hermes('Oslo')}\n${hermes('Bergen')}`;
type Chunk = {
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
};

function streamOf(
  text: string,
  extra: { usageWithFinish?: boolean; usageChunk?: boolean } = {},
): CannedAnswer {
  const usage = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };
  return {
    events: [
      chunk({ role: 'assistant', content: '' }),
      ...chunkText(text, 7).map((piece) => chunk({ content: piece })),
      chunk({}, { finish: 'stop', extra: extra.usageWithFinish ? { usage } : {} }),
      ...(extra.usageChunk ? [{ ...chunk({}), choices: [], usage }] : []),
    ],
  };
}

function answerFor(path: string, body: Record<string, unknown>): CannedAnswer {
  if (path === '/v1/models')
    return { status: 200, json: { object: 'list', data: [{ id: 'm', object: 'model', created: 1 }] } };
  const messages = body.messages as { content: string }[];
  const last = messages.at(-1)?.content ?? '';
  if (last.includes('[usage-chunk]')) return streamOf(hermes('Oslo'), { usageChunk: true });
  if (last.includes('[usage-with-finish]')) return streamOf(hermes('Oslo'), { usageWithFinish: true });
  if (last.includes('[two]') && body.stream === true) return streamOf(twoCalls);
  if (last.includes('[two]')) return { status: 200, json: completion([{ index: 0, content: twoCalls }]) };
  if (last.includes('[n2]') && body.stream === true) {
    // Two choices, their chunks interleaved: choice 1 writes a call as text, choice 0 answers in prose.
    const prose = chunkText('Sunny all day.', 5);
    const call = chunkText(hermes('Oslo'), 9);
    const events: Record<string, unknown>[] = [];
    for (let at = 0; at < Math.max(prose.length, call.length); at += 1) {
      if (prose[at] !== undefined) events.push(chunk({ content: prose[at] }, { index: 0 }));
      if (call[at] !== undefined) events.push(chunk({ content: call[at] }, { index: 1 }));
    }
    events.push(chunk({}, { index: 0, finish: 'stop' }), chunk({}, { index: 1, finish: 'stop' }));
    return { events };
  }
  if (last.includes('[n2]'))
    return {
      status: 200,
      json: completion([
        { index: 0, content: 'Sunny all day.' },
        { index: 1, content: hermes('Oslo') },
      ]),
    };
  if (last.includes('[logprobs]'))
    return {
      events: chunkText(hermes('Oslo'), 6)
        .map((piece) =>
          chunk(
            { content: piece },
            {
              choice: {
                logprobs: { content: [{ token: piece, logprob: -0.1, bytes: [], top_logprobs: [] }] },
              },
            },
          ),
        )
        .concat([chunk({}, { finish: 'stop' })]),
    };
  if (last.includes('[breaks]'))
    return { events: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'It is' })], drop: true };
  if (last.includes('[unknown-model]'))
    return {
      status: 404,
      json: {
        object: 'error',
        message: 'The model `nope` does not exist.',
        type: 'NotFoundError',
        param: null,
        code: 404,
      },
    };
  if (last.includes('[upstream-401]'))
    return {
      status: 401,
      json: { error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } },
    };
  if (last.includes('[bad-param]'))
    return {
      status: 400,
      json: {
        error: {
          message: 'temperature is too high',
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'invalid_value',
        },
      },
    };
  return {
    status: 200,
    json: completion([
      {
        index: 0,
        content: last.includes('[call]')
          ? hermes('Oslo')
          : last.includes('[call-time]')
            ? timeCall
            : 'Plain.',
      },
    ]),
  };
}

function completion(choices: { index: number; content: string }[]): Record<string, unknown> {
  return {
    id: 'chatcmpl-canned',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: choices.map(({ index, content }) => ({
      index,
      message: { role: 'assistant', content, refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    })),
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  };
}

describe('the gateway against the Chat Completions reference', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let client: OpenAI;
  const ask = (content: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ model: 'm', messages: [{ role: 'user', content }], tools: [weatherTool], ...extra });
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body, headers });
  const streamed = async (content: string, extra: Record<string, unknown> = {}) =>
    sseEvents(await (await post(ask(content, { stream: true, ...extra }))).text());

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    gateway = await startGateway({ upstreams: [{ name: 'canned', baseUrl: upstream.baseUrl }] });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('include_usage: the usage chunk (choices []) comes last, after the recovered call and its finish', async () => {
    const events = await streamed('[usage-chunk]', { stream_options: { include_usage: true } });
    assert.equal(events.at(-1)?.data, '[DONE]');
    const chunks = events.slice(0, -1).map((event) => event.data as Chunk);
    const usage = chunks.at(-1);
    assert.deepEqual(usage?.choices, []);
    assert.deepEqual(usage?.usage, { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 });
    const finishAt = chunks.findIndex((item) => item.choices[0]?.finish_reason === 'tool_calls');
    assert.equal(finishAt, chunks.length - 2);
  });

  it('usage sent with the finish (llama.cpp) stays on the last chunk only, not on the recovered call chunks', async () => {
    const chunks = (await streamed('[usage-with-finish]')).slice(0, -1).map((event) => event.data as Chunk);
    const withUsage = chunks.filter((item) => item.usage !== undefined && item.usage !== null);
    assert.equal(withUsage.length, 1);
    assert.equal(withUsage[0], chunks.at(-1));
    assert.equal(withUsage[0]?.choices[0]?.finish_reason, 'tool_calls');
    assert.ok(chunks.some((item) => item.choices[0]?.delta.tool_calls !== undefined));
  });

  it('n = 2: each choice is repaired on its own index, streaming and not', async () => {
    const chunks = (await streamed('[n2]', { n: 2 })).slice(0, -1).map((event) => event.data as Chunk);
    const of = (index: number) =>
      chunks.flatMap((item) => item.choices.filter((choice) => choice.index === index));
    assert.equal(
      of(0)
        .map((choice) => choice.delta.content ?? '')
        .join(''),
      'Sunny all day.',
    );
    assert.equal(of(0).at(-1)?.finish_reason, 'stop');
    assert.doesNotMatch(
      of(1)
        .map((choice) => choice.delta.content ?? '')
        .join(''),
      markupPattern,
    );
    assert.equal(of(1).at(-1)?.finish_reason, 'tool_calls');
    const calls = of(1).flatMap(
      (choice) => (choice.delta.tool_calls as { function: { arguments?: string } }[]) ?? [],
    );
    assert.equal(calls.map((call) => call.function.arguments ?? '').join(''), '{"city":"Oslo"}');
    const whole = await client.chat.completions.create({
      model: 'm',
      n: 2,
      messages: [{ role: 'user', content: '[n2]' }],
      tools: [weatherTool],
    });
    assert.equal(whole.choices[0]?.message.content, 'Sunny all day.');
    assert.equal(whole.choices[0]?.finish_reason, 'stop');
    const second = whole.choices[1];
    assert.equal(second?.finish_reason, 'tool_calls');
    assert.equal(second?.message.content, null);
    const call = second?.message.tool_calls?.[0];
    assert.match(call?.id ?? '', /^call_[0-9a-f]{24}$/);
    assert.deepEqual(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined, {
      city: 'Oslo',
    });
  });

  it('parallel_tool_calls: false emits the first of two recovered calls and says one was dropped', async () => {
    const both = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: '[two]' }],
      tools: [weatherTool],
    });
    assert.equal(both.choices[0]?.message.tool_calls?.length, 2);
    const { data, response } = await client.chat.completions
      .create({
        model: 'm',
        messages: [{ role: 'user', content: '[two]' }],
        tools: [weatherTool],
        parallel_tool_calls: false,
      })
      .withResponse();
    const calls = data.choices[0]?.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    assert.equal(response.headers.get('x-toolbus-recovery'), 'recovered; calls=1; dropped=1');
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: '[two]' }],
      tools: [weatherTool],
      parallel_tool_calls: false,
    });
    const indexes = new Set<number>();
    for await (const part of stream)
      for (const call of part.choices[0]?.delta.tool_calls ?? []) indexes.add(call.index);
    assert.deepEqual([...indexes], [0]);
  });

  it('tool_choice: a forced function limits recovery to it; none leaves the text as text', async () => {
    const timeTool = {
      type: 'function' as const,
      function: { name: 'get_time', parameters: { type: 'object' } },
    };
    const ask = (tool_choice: OpenAI.ChatCompletionToolChoiceOption) =>
      client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: '[call-time]' }],
        tools: [weatherTool, timeTool],
        tool_choice,
      });
    const auto = await ask('auto');
    assert.equal(auto.choices[0]?.finish_reason, 'tool_calls');
    const forced = await ask({ type: 'function', function: { name: 'get_weather' } });
    assert.equal(forced.choices[0]?.message.tool_calls, undefined);
    const required = await ask('required');
    assert.equal(required.choices[0]?.finish_reason, 'tool_calls');
    const none = await ask('none');
    assert.equal(none.choices[0]?.message.tool_calls, undefined);
    assert.equal(none.choices[0]?.finish_reason, 'stop');
    assert.match(none.choices[0]?.message.content ?? '', /get_time/);
  });

  it('logprobs chunks: the call is recovered and no markup reaches the text', async () => {
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      logprobs: true,
      messages: [{ role: 'user', content: '[logprobs]' }],
      tools: [weatherTool],
    });
    let content = '';
    let finish: string | null = null;
    for await (const part of stream) {
      content += part.choices[0]?.delta.content ?? '';
      finish = part.choices[0]?.finish_reason ?? finish;
    }
    assert.doesNotMatch(content, markupPattern);
    assert.equal(finish, 'tool_calls');
  });

  it('answers every refusal in OpenAI’s error shape {message, type, param, code}', async () => {
    const shape = async (response: Response) => {
      const body = (await response.json()) as { error: Record<string, unknown> };
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
      return Object.assign({ status: response.status }, body.error) as Record<string, unknown>;
    };
    const malformed = await shape(await post('{"model": '));
    assert.equal(malformed.status, 400);
    assert.equal(malformed.type, 'invalid_request_error');
    const form = await shape(await post('model=m', { 'content-type': 'application/x-www-form-urlencoded' }));
    assert.equal(form.status, 415);
    assert.match(String(form.message), /Content-Type: application\/json/);
    const legacy = await shape(
      await post(JSON.stringify({ model: 'm', messages: [], functions: [{ name: 'f' }] })),
    );
    assert.equal(legacy.status, 400);
    assert.equal(legacy.param, 'functions');
    const unknownModel = await shape(await post(ask('[unknown-model]')));
    assert.equal(unknownModel.status, 404);
    assert.equal(unknownModel.code, 'model_not_found');
    assert.match(String(unknownModel.message), /does not exist/);
    // … and names the models the gateway serves, so the user sees which name to send instead.
    assert.match(String(unknownModel.message), /The gateway serves: m\b/);
    // The upstream refusing the gateway's own key is the gateway's failure, not the client's key: 502.
    const refused = await shape(await post(ask('[upstream-401]')));
    assert.equal(refused.status, 502);
    assert.equal(refused.code, 'upstream_key_refused');
    const missingModel = await shape(await post(JSON.stringify({ messages: [] })));
    assert.equal(missingModel.param, 'model');
    const badParam = await shape(await post(ask('[bad-param]')));
    assert.equal(badParam.status, 400);
    assert.equal(badParam.param, 'temperature');
    assert.equal(badParam.code, 'invalid_value');
  });

  it('an upstream that breaks off mid-stream ends the stream with an error event the openai client throws', async () => {
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: '[breaks]' }],
    });
    await assert.rejects(
      (async () => {
        for await (const _ of stream);
      })(),
      (error: unknown) => error instanceof OpenAI.APIError && /failed mid-answer/.test(error.message),
    );
  });
});
