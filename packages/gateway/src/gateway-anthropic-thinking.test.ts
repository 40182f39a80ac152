import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { chunkText } from '@toolbus/core/testing';
import {
  type CannedAnswer,
  type CannedUpstream,
  chunk,
  completion,
  sseEvents,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { hermesCall, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// The thinking blocks the gateway writes carry a signature, sent as Anthropic's stream sends it (a
// `signature_delta` just before the block's stop): Claude Code drops a thinking block without one. A client sends
// the block back, signature and all, in its next request (the tool round trip), and the gateway hands its text to
// the upstream as the assistant message's `reasoning_content`, where reasoning models' templates read it.
type StreamEvent = {
  type?: string;
  index?: number;
  content_block?: { type?: string };
  delta?: { type?: string; signature?: string };
};
const reasoning = 'The user wants the weather; call get_weather.';

function answerFor(_path: string, body: Record<string, unknown>): CannedAnswer {
  const messages = body.messages as { role: string }[];
  const answered = messages.some((message) => message.role === 'tool');
  const text = answered ? 'It is 12 °C in Oslo.' : hermesCall('Oslo');
  if (body.stream === true)
    return {
      events: [
        chunk({ role: 'assistant', content: '' }),
        ...(answered ? [] : chunkText(reasoning, 9).map((piece) => chunk({ reasoning_content: piece }))),
        ...chunkText(text, 8).map((piece) => chunk({ content: piece })),
        chunk({}, { finish: 'stop' }),
      ],
    };
  return {
    status: 200,
    json: completion({ content: text, ...(answered ? {} : { reasoning_content: reasoning }) }),
  };
}

describe('thinking blocks: signed by the gateway, taken back in the next turn', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let client: Anthropic;
  const tools = [
    {
      name: weatherTool.function.name,
      description: weatherTool.function.description,
      input_schema: weatherTool.function.parameters,
    },
  ];

  before(async () => {
    upstream = await startCannedUpstream(answerFor);
    gateway = await startGateway({ upstreams: [{ name: 'canned', baseUrl: upstream.baseUrl }] });
    client = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('streams the signature as a signature_delta just before the thinking block stops', async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        max_tokens: 100,
        stream: true,
        tools,
        messages: [{ role: 'user', content: 'Oslo?' }],
      }),
    });
    const events = sseEvents(await response.text()).map((item) => item.data as StreamEvent);
    const thinkingAt = events.findIndex((item) => item.content_block?.type === 'thinking');
    const stopAt = events.findIndex((item, at) => at > thinkingAt && item.type === 'content_block_stop');
    const signature = events[stopAt - 1];
    assert.equal(signature?.delta?.type, 'signature_delta');
    assert.equal(signature?.index, events[thinkingAt]?.index);
    assert.ok((signature?.delta?.signature ?? '').length > 0);
  });

  for (const streamed of [true, false]) {
    it(`the Anthropic SDK (${streamed ? 'streaming' : 'not streaming'}) sends its thinking block back and the turn goes on`, async () => {
      const ask = (messages: Anthropic.MessageParam[]) => ({ model: 'm', max_tokens: 100, tools, messages });
      const question: Anthropic.MessageParam = { role: 'user', content: 'The weather in Oslo?' };
      const first = streamed
        ? await client.messages.stream(ask([question])).finalMessage()
        : await client.messages.create(ask([question]));
      assert.deepEqual(
        first.content.map((block) => block.type),
        ['thinking', 'tool_use'],
      );
      const thinking = first.content[0];
      assert.ok(thinking?.type === 'thinking');
      assert.equal(thinking.thinking, reasoning);
      assert.notEqual(thinking.signature, '', 'a signature a client keeps and sends back');
      const use = first.content[1];
      assert.ok(use?.type === 'tool_use');

      const before = upstream.bodies.length;
      const second = await client.messages.create(
        ask([
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '12 °C' }] },
        ]),
      );
      assert.equal(second.stop_reason, 'end_turn');
      assert.deepEqual(
        second.content.map((block) => (block.type === 'text' ? block.text : block.type)),
        ['It is 12 °C in Oslo.'],
      );
      // The thinking went back as reasoning beside the call, and the result after them.
      const sent = upstream.bodies.slice(before).at(-1)?.body;
      const messages = sent?.messages as {
        role: string;
        tool_calls?: unknown[];
        reasoning_content?: string;
      }[];
      const assistant = messages.find((message) => message.role === 'assistant');
      assert.equal(assistant?.tool_calls?.length, 1);
      assert.equal(assistant?.reasoning_content, reasoning);
      assert.ok(messages.some((message) => message.role === 'tool'));
      assert.equal(
        JSON.stringify(sent).split('call get_weather.').length,
        2,
        'the reasoning once, not in text',
      );
    });
  }

  it("drops thinking blocks the gateway did not write (another server's, redacted ones)", async () => {
    const before = upstream.bodies.length;
    await client.messages.create({
      model: 'm',
      max_tokens: 100,
      tools,
      messages: [
        { role: 'user', content: 'The weather in Oslo?' },
        {
          role: 'assistant',
          content: [
            {
              type: 'thinking',
              thinking: 'Reasoning from elsewhere.',
              signature: 'EqQBCgIYAhIM1gbcDa9GJwZA',
            },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
            { type: 'text', text: 'Checking.' },
          ],
        },
        { role: 'user', content: 'Go on.' },
      ],
    });
    const sent = upstream.bodies.slice(before).at(-1)?.body;
    const assistant = (
      (sent?.messages ?? []) as { role: string; content?: unknown; reasoning_content?: string }[]
    ).find((message) => message.role === 'assistant');
    assert.deepEqual(assistant, { role: 'assistant', content: 'Checking.' });
  });
});
