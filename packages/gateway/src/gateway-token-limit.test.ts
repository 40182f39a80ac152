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
  completion,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { readChatStream } from './__fixtures__/read-chat-stream.ts';
import { hermesCall, weatherTool } from './__fixtures__/text-call-dialects.ts';
import type { GatewayLogEvent } from './gateway-options.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// An answer the output token limit ended (`finish_reason: "length"`) while the model was still writing a call as
// text: the cut call is not completed into one the model never finished (`get_time({})`, `get_weather({city:
// "Par"})`); calls that closed before the cut still come as calls; the finish stays `length` (`max_tokens`).
const timeTool = {
  type: 'function' as const,
  function: {
    name: 'get_time',
    description: 'The time.',
    parameters: { type: 'object' as const, properties: {} },
  },
};
const cases = {
  /** A Hermes call cut inside its arguments, after a line of prose. */
  hermesCut: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"ci',
  /** A bare JSON call cut right after its arguments opened: repair would close it as `get_time({})`. */
  bareCut: '{"name": "get_time", "arguments": {',
  /** A Mistral array whose second call the limit cut: repair would read `get_weather({city: "Par"})`. */
  mistralCut:
    '[TOOL_CALLS] [{"name": "get_time", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Par',
  /** A whole Hermes call, then a second one cut. */
  hermesThenCut: `${hermesCall('Oslo')}\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Ber`,
} as const;
type Case = keyof typeof cases;

function answerFor(_path: string, body: Record<string, unknown>): CannedAnswer {
  const messages = body.messages as { content: unknown }[];
  const last = String(messages.at(-1)?.content ?? '');
  const name = (Object.keys(cases) as Case[]).find((key) => last.includes(`[${key}]`));
  const text = name === undefined ? hermesCall('Oslo') : cases[name];
  const finish = name === undefined ? 'stop' : 'length';
  if (body.stream === true)
    return {
      events: [
        chunk({ role: 'assistant', content: '' }),
        ...chunkText(text, 6).map((piece) => chunk({ content: piece })),
        chunk({}, { finish }),
      ],
    };
  return {
    status: 200,
    json: completion(
      { content: text },
      { finish, extra: { usage: { prompt_tokens: 1, completion_tokens: 100, total_tokens: 101 } } },
    ),
  };
}

// A streamed answer read over `node:http`, for its trailers (fetch does not expose them).
function streamTrailers(url: string, body: unknown): Promise<Record<string, string | undefined>> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.trailers));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('the gateway when the token limit cuts a call written as text', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  const log: GatewayLogEvent[] = [];
  const ask = (content: string) => ({
    model: 'm',
    messages: [{ role: 'user' as const, content }],
    tools: [weatherTool, timeTool],
  });
  const askAnthropic = (content: string) => ({
    model: 'm',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content }],
    tools: [weatherTool, timeTool].map(({ function: fn }) => ({
      name: fn.name,
      description: fn.description,
      input_schema: fn.parameters,
    })),
  });

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    gateway = await startGateway({
      upstreams: [{ name: 'canned', baseUrl: upstream.baseUrl }],
      log: (event) => log.push(event),
    });
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('a lone cut call is no tool call: the text as written, finish length, x-toolbus-recovery: truncated', async () => {
    for (const name of ['hermesCut', 'bareCut'] as const) {
      const { data, response } = await openai.chat.completions.create(ask(`[${name}]`)).withResponse();
      const choice = data.choices[0];
      assert.equal(choice?.message.tool_calls, undefined, name);
      assert.equal(choice?.finish_reason, 'length', name);
      assert.equal(choice?.message.content, cases[name], name);
      assert.equal(response.headers.get('x-toolbus-recovery'), 'truncated', name);
      assert.match(response.headers.get('x-toolbus-recovery-reason') ?? '', /token limit/, name);

      const streamed = await readChatStream(
        await openai.chat.completions.create({ ...ask(`[${name}]`), stream: true }),
      );
      assert.deepEqual(streamed.calls, [], name);
      assert.equal(streamed.finish, 'length', name);
      assert.equal(streamed.content, cases[name], name);
      const trailers = await streamTrailers(`${gateway.url}/v1/chat/completions`, {
        ...ask(`[${name}]`),
        stream: true,
      });
      assert.equal(trailers['x-toolbus-recovery'], 'truncated', name);
    }
  });

  it('calls that closed before the cut still come as calls, the cut one does not; the finish stays length', async () => {
    const expected = {
      mistralCut: [{ name: 'get_time', arguments: {} }],
      hermesThenCut: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
    };
    for (const name of ['mistralCut', 'hermesThenCut'] as const) {
      const { data, response } = await openai.chat.completions.create(ask(`[${name}]`)).withResponse();
      const choice = data.choices[0];
      assert.deepEqual(
        choice?.message.tool_calls?.map((call) =>
          call.type === 'function'
            ? { name: call.function.name, arguments: JSON.parse(call.function.arguments) }
            : call,
        ),
        expected[name],
        name,
      );
      assert.equal(choice?.finish_reason, 'length', name);
      assert.equal(choice?.message.content, null, name);
      assert.equal(response.headers.get('x-toolbus-recovery'), 'recovered; calls=1; truncated=1', name);

      const streamed = await readChatStream(
        await openai.chat.completions.create({ ...ask(`[${name}]`), stream: true }),
      );
      assert.deepEqual(
        streamed.calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) })),
        expected[name],
        name,
      );
      assert.equal(streamed.finish, 'length', name);
      assert.equal(streamed.content.trim(), '', name);
    }
  });

  it('the request log counts the calls the limit cut, beside the calls made or in place of them', async () => {
    log.length = 0;
    await openai.chat.completions.create(ask('[mistralCut]'));
    await openai.chat.completions.create(ask('[bareCut]'));
    await anthropic.messages.create(askAnthropic('[mistralCut]'));
    const requests = log.filter((event) => event.event === 'request');
    assert.deepEqual(
      requests.map(({ route, recovered, recovery, truncated }) => ({
        route,
        recovered,
        recovery,
        truncated,
      })),
      [
        { route: '/v1/chat/completions', recovered: 1, recovery: undefined, truncated: 1 },
        { route: '/v1/chat/completions', recovered: 0, recovery: 'truncated', truncated: 1 },
        { route: '/v1/messages', recovered: 1, recovery: undefined, truncated: 1 },
      ],
    );
  });

  it('a whole call the upstream finished with stop still comes back with finish tool_calls', async () => {
    const { data, response } = await openai.chat.completions.create(ask('whole')).withResponse();
    assert.equal(data.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(data.choices[0]?.message.tool_calls?.length, 1);
    assert.equal(response.headers.get('x-toolbus-recovery'), 'recovered; calls=1');
  });

  it('Messages: no tool_use for a cut call, the ones before it stay, stop_reason max_tokens', async () => {
    const lone = await anthropic.messages.create(askAnthropic('[bareCut]'));
    assert.equal(lone.stop_reason, 'max_tokens');
    assert.deepEqual(
      lone.content.map((block) => block.type),
      ['text'],
    );
    assert.deepEqual(lone.content[0]?.type === 'text' ? lone.content[0].text : '', cases.bareCut);

    const loneStream = await anthropic.messages.stream(askAnthropic('[hermesCut]')).finalMessage();
    assert.equal(loneStream.stop_reason, 'max_tokens');
    assert.equal(
      loneStream.content.some((block) => block.type === 'tool_use'),
      false,
    );

    for (const name of ['mistralCut', 'hermesThenCut'] as const) {
      for (const message of [
        await anthropic.messages.create(askAnthropic(`[${name}]`)),
        await anthropic.messages.stream(askAnthropic(`[${name}]`)).finalMessage(),
      ]) {
        const uses = message.content.filter((block) => block.type === 'tool_use');
        assert.deepEqual(
          uses.map((block) => block.name),
          [name === 'mistralCut' ? 'get_time' : 'get_weather'],
          name,
        );
        assert.equal(message.stop_reason, 'max_tokens', name);
      }
    }
  });
});
