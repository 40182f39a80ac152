import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { chunkText } from '@toolbus/core/testing';
import {
  type CannedAnswer,
  type CannedUpstream,
  chunk,
  sseEvents,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { hermesCall } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// The Messages wire as Anthropic's reference documents it, against an upstream that writes what OpenAI-compatible
// servers write (vLLM's `stop_reason`, usage last, an error event, a stream that breaks off, `/tokenize`).
const hermes = hermesCall;
const usage = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };
const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'The weather for a city.',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

function lastText(body: Record<string, unknown>): string {
  const content = (body.messages as { content: unknown }[]).at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

function streamOrWhole(
  body: Record<string, unknown>,
  text: string,
  finish = 'stop',
  choice: Record<string, unknown> = {},
): CannedAnswer {
  if (body.stream !== true)
    return {
      status: 200,
      json: {
        id: 'c',
        object: 'chat.completion',
        model: 'm',
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, finish_reason: finish, ...choice },
        ],
        usage,
      },
    };
  return {
    events: [
      chunk({ role: 'assistant', content: '' }),
      ...chunkText(text, 6).map((piece) => chunk({ content: piece })),
      chunk({}, { finish, choice }),
      { ...chunk({}), choices: [], usage },
    ],
  };
}

function answerFor(path: string, body: Record<string, unknown>): CannedAnswer {
  if (path === '/tokenize') return { status: 404, json: { detail: 'Not Found' } };
  if (path === '/v1/models')
    return {
      status: 200,
      json: {
        object: 'list',
        data: [{ id: 'qwen3', object: 'model', created: 1_700_000_000, owned_by: 'vllm' }],
      },
    };
  const last = lastText(body);
  if (last.includes('[thinks-and-calls]')) {
    const events = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'The user wants Oslo.' }),
      ...chunkText(`Let me check.\n${hermes('Oslo')}`, 8).map((piece) => chunk({ content: piece })),
      chunk({}, { finish: 'stop' }),
      { ...chunk({}), choices: [], usage },
    ];
    return { events };
  }
  if (last.includes('[stop-sequence]'))
    return streamOrWhole(body, 'Counting: 1, 2', 'stop', { stop_reason: '###' });
  if (last.includes('[length]')) return streamOrWhole(body, 'Counting: 1, 2', 'length');
  if (last.includes('[two]')) return streamOrWhole(body, `${hermes('Oslo')}\n${hermes('Bergen')}`);
  if (last.includes('[breaks]'))
    return { events: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'It is' })], drop: true };
  if (last.includes('[error-event]'))
    return {
      events: [
        chunk({ content: 'It is' }),
        { error: { message: 'out of memory', type: 'InternalServerError', code: 500 } },
        // Nothing after the error reaches the client.
        chunk({ content: ' sunny' }, { finish: 'stop' }),
      ],
    };
  if (last.includes('[unknown-model]'))
    return {
      status: 404,
      json: {
        object: 'error',
        message: 'The model `nope` does not exist.',
        type: 'NotFoundError',
        code: 404,
      },
    };
  return streamOrWhole(body, 'Hello there.');
}

describe('the gateway against the Messages reference', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let client: Anthropic;
  const key = 'tbk_anthropic_key';
  const raw = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    });
  const ask = (content: string, extra: Record<string, unknown> = {}) => ({
    model: 'm',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content }],
    tools,
    ...extra,
  });

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    gateway = await startGateway({
      upstreams: [{ name: 'canned', baseUrl: upstream.baseUrl }],
      authenticate: async (given) => (given === key ? { id: 'key-1' } : undefined),
    });
    client = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('translates every documented content block, with or without anthropic-version and with anthropic-beta', async () => {
    const image = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
    const request = {
      model: 'm',
      max_tokens: 100,
      system: [
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Use tools.' },
      ],
      tools,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image', source: image },
            { type: 'image', source: { type: 'url', url: 'https://example.org/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such city', is_error: true },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [
                { type: 'text', text: '12 °C' },
                { type: 'image', source: image },
              ],
            },
            { type: 'text', text: 'Thanks.' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A note.' } },
            {
              type: 'document',
              title: 'Report',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
            },
          ],
        },
      ],
    };
    for (const headers of [{}, { 'anthropic-version': '2099-01-01', 'anthropic-beta': 'some-beta-2099' }]) {
      const answer = await raw('/v1/messages', request, headers);
      assert.equal(answer.status, 200);
    }
    const sent = upstream.bodies.at(-1)?.body as Record<string, unknown>;
    assert.equal(sent.tool_choice, 'required');
    assert.equal(sent.parallel_tool_calls, false);
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Be brief.\n\nUse tools.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.org/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'toolu_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Bergen"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: no such city' },
      { role: 'tool', tool_call_id: 'toolu_2', content: '12 °C' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The result of toolu_2:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: 'Thanks.' },
          { type: 'text', text: 'A note.' },
          {
            type: 'text',
            text: '[A document "Report" was left out: the model server takes text and images only.]',
          },
        ],
      },
    ]);
  });

  it('streams the documented event order: message_start, ping, blocks with their deltas, message_delta, message_stop', async () => {
    const answer = await raw('/v1/messages', ask('[thinks-and-calls]', { stream: true }));
    const events = sseEvents(await answer.text());
    for (const event of events) assert.equal((event.data as { type: string }).type, event.event);
    const names = events.map((event) => {
      const data = event.data as { delta?: { type?: string }; content_block?: { type: string } };
      if (event.event === 'content_block_start') return `start:${data.content_block?.type}`;
      if (event.event === 'content_block_delta') return data.delta?.type;
      return event.event;
    });
    const collapsed = names.filter((name, at) => name !== names[at - 1]);
    assert.deepEqual(collapsed, [
      'message_start',
      'ping',
      'start:thinking',
      'thinking_delta',
      'signature_delta',
      'content_block_stop',
      'start:text',
      'text_delta',
      'content_block_stop',
      'start:tool_use',
      'input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const delta = events.find((event) => event.event === 'message_delta')?.data as {
      delta: { stop_reason: string; stop_sequence: null };
      usage: Record<string, number>;
    };
    assert.deepEqual(delta.delta, { stop_reason: 'tool_use', stop_sequence: null });
    assert.deepEqual(delta.usage, { input_tokens: 12, output_tokens: 34 });
  });

  it('says which stop sequence ended the answer (vLLM names it), and max_tokens for a cut answer', async () => {
    const whole = await client.messages.create(ask('[stop-sequence]', { stop_sequences: ['###'] }));
    assert.equal(whole.stop_reason, 'stop_sequence');
    assert.equal(whole.stop_sequence, '###');
    const streamed = await client.messages
      .stream(ask('[stop-sequence]', { stop_sequences: ['###'] }))
      .finalMessage();
    assert.equal(streamed.stop_reason, 'stop_sequence');
    assert.equal(streamed.stop_sequence, '###');
    assert.equal(streamed.usage.input_tokens, 12);
    const cut = await client.messages.stream(ask('[length]')).finalMessage();
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.equal(cut.stop_sequence, null);
  });

  it('disable_parallel_tool_use: one tool_use block of the two calls written, streaming and not', async () => {
    const both = await client.messages.create(ask('[two]'));
    assert.equal(both.content.filter((block) => block.type === 'tool_use').length, 2);
    const choice = { type: 'auto' as const, disable_parallel_tool_use: true };
    const one = await client.messages.create(ask('[two]', { tool_choice: choice }));
    assert.equal(one.content.filter((block) => block.type === 'tool_use').length, 1);
    assert.equal(one.stop_reason, 'tool_use');
    const streamed = await client.messages.stream(ask('[two]', { tool_choice: choice })).finalMessage();
    assert.deepEqual(
      streamed.content.filter((block) => block.type === 'tool_use').map((block) => block.input),
      [{ city: 'Oslo' }],
    );
  });

  it('reports an upstream failure mid-stream as an error event the Anthropic SDK throws', async () => {
    for (const marker of ['[breaks]', '[error-event]']) {
      const events = sseEvents(await (await raw('/v1/messages', ask(marker, { stream: true }))).text());
      const last = events.at(-1);
      assert.equal(last?.event, 'error', marker);
      assert.equal((last?.data as { error?: { type: string } } | undefined)?.error?.type, 'api_error');
      assert.ok(!events.some((event) => event.event === 'message_stop'), marker);
    }
    await assert.rejects(
      client.messages.stream(ask('[error-event]')).finalMessage(),
      (error: unknown) => error instanceof Anthropic.APIError && /out of memory/.test(error.message),
    );
  });

  it('answers errors as {type: "error", error: {type, message}} with the type for each status', async () => {
    const shape = async (response: Response) => {
      const body = (await response.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(typeof body.error.message, 'string');
      return { status: response.status, type: body.error.type };
    };
    assert.deepEqual(await shape(await raw('/v1/messages', ask('hi'), { 'x-api-key': 'wrong' })), {
      status: 401,
      type: 'authentication_error',
    });
    assert.deepEqual(await shape(await raw('/v1/messages', '{"model":')), {
      status: 400,
      type: 'invalid_request_error',
    });
    assert.deepEqual(await shape(await raw('/v1/messages', 'x', { 'content-type': 'text/plain' })), {
      status: 415,
      type: 'invalid_request_error',
    });
    assert.deepEqual(await shape(await raw('/v1/messages', ask('[unknown-model]'))), {
      status: 404,
      type: 'not_found_error',
    });
    assert.deepEqual(await shape(await raw('/v1/messages/batches', {})), {
      status: 404,
      type: 'not_found_error',
    });
    // Claude Code with an auth token sends Authorization; a non-Bearer one does not hide the x-api-key beside it.
    const basic = await raw('/v1/messages', ask('hi'), { authorization: 'Basic dXNlcjpwYXNz' });
    assert.equal(basic.status, 200);
  });

  it('counts tokens at /v1/messages/count_tokens: an estimate, or the upstream’s /tokenize when it has one', async () => {
    const request = {
      model: 'm',
      system: 'Be brief.',
      messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }],
      tools,
    };
    const { data, response } = await client.messages.countTokens(request).withResponse();
    assert.ok(data.input_tokens > 10 && data.input_tokens < 200, String(data.input_tokens));
    assert.equal(response.headers.get('x-toolbus-token-count'), 'estimate');
    const counting = await startCannedUpstream((path) =>
      path === '/tokenize'
        ? { status: 200, json: { count: 42, max_model_len: 8192, tokens: [] } }
        : { status: 500, json: {} },
    );
    const counted = await startGateway({ upstreams: [{ name: 'vllm', baseUrl: counting.baseUrl }] });
    try {
      const viaVllm = new Anthropic({ baseURL: counted.url, apiKey: 'unused', maxRetries: 0 });
      assert.equal((await viaVllm.messages.countTokens(request)).input_tokens, 42);
      const asked = counting.bodies[0];
      assert.equal(asked?.path, '/tokenize');
      assert.deepEqual(asked?.body.messages, [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is the weather in Oslo?' },
      ]);
    } finally {
      await counted.close();
      await counting.close();
    }
  });

  it('lists models in Anthropic’s shape for an Anthropic client, in OpenAI’s for the others', async () => {
    const page = await client.models.list();
    assert.deepEqual(page.data, [
      { type: 'model', id: 'qwen3', display_name: 'qwen3', created_at: '2023-11-14T22:13:20.000Z' },
    ]);
    const openai = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(((await openai.json()) as { object: string }).object, 'list');
  });
});
