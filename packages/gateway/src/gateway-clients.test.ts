import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import {
  chunkText,
  type ScriptedModelServer,
  startScriptedModelServer,
  textSteps,
} from '@toolbus/core/testing';
import { jsonSchema, streamText, tool } from 'ai';
import { markupPattern, textCallDialects, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// Other real clients, unchanged: the AI SDK's OpenAI-compatible provider, LangChain.js's ChatOpenAI and the
// Anthropic SDK (against /v1/messages) each get the calls a model wrote as text as native calls.
const mention = 'Qwen writes calls as `<tool_call>{"name": "get_weather"}</tool_call>`; here it is sunny.';

describe('gateway with the AI SDK, LangChain and the Anthropic SDK', () => {
  let upstream: ScriptedModelServer;
  let gateway: RunningGateway;

  before(async () => {
    upstream = await startScriptedModelServer({
      handler(request) {
        const last = request.lastMessage?.text ?? '';
        if (request.lastMessage?.role === 'tool') return textSteps(['It is 12 °C.']);
        const dialect = textCallDialects.find((entry) => last.includes(`[${entry.dialect}]`));
        if (dialect) return textSteps(chunkText(dialect.text, 4));
        if (last.includes('[mention]')) return textSteps(chunkText(mention, 6));
        return textSteps(['<think>pondering</think>', 'Just ', 'text.']);
      },
    });
    gateway = await startGateway({ upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1` }] });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const { dialect } of textCallDialects) {
    it(`AI SDK streamText gets a ${dialect} call as a tool call`, async () => {
      const provider = createOpenAICompatible({ name: 'gateway', baseURL: `${gateway.url}/v1` });
      const result = streamText({
        model: provider.chatModel('qwen2.5-7b-instruct'),
        prompt: `weather in Oslo [${dialect}]`,
        tools: {
          get_weather: tool({
            description: 'The weather.',
            inputSchema: jsonSchema<{ city: string }>(weatherTool.function.parameters),
          }),
        },
      });
      const text = await result.text;
      const calls = await result.toolCalls;
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.toolName, 'get_weather');
      assert.deepEqual(calls[0]?.input, { city: 'Oslo' });
      assert.equal(await result.finishReason, 'tool-calls');
      assert.doesNotMatch(text, markupPattern);
    });
  }

  for (const { dialect } of textCallDialects) {
    it(`LangChain ChatOpenAI with bindTools gets a ${dialect} call in tool_calls`, async () => {
      const model = new ChatOpenAI({
        model: 'qwen3-coder-30b',
        apiKey: 'unused',
        configuration: { baseURL: `${gateway.url}/v1` },
        maxRetries: 0,
      }).bindTools([weatherTool]);
      const message = await model.invoke(`weather in Oslo [${dialect}]`);
      assert.equal(message.tool_calls?.length, 1);
      assert.equal(message.tool_calls?.[0]?.name, 'get_weather');
      assert.deepEqual(message.tool_calls?.[0]?.args, { city: 'Oslo' });
      assert.doesNotMatch(String(message.content), markupPattern);
      let streamed = '';
      const chunks = [];
      for await (const chunk of await model.stream(`weather in Oslo [${dialect}]`)) {
        streamed += String(chunk.content);
        chunks.push(chunk);
      }
      const joined = chunks.reduce((left, right) => left.concat(right));
      assert.equal(joined.tool_calls?.[0]?.name, 'get_weather');
      assert.deepEqual(joined.tool_calls?.[0]?.args, { city: 'Oslo' });
      assert.doesNotMatch(streamed, markupPattern);
    });
  }

  const anthropicTools: Anthropic.Tool[] = [
    {
      name: 'get_weather',
      description: 'The weather.',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];

  for (const { dialect } of textCallDialects) {
    it(`the Anthropic SDK gets a ${dialect} call as a tool_use block, streaming and not`, async () => {
      const client = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
      const message = await client.messages.create({
        model: 'qwen2.5-7b-instruct',
        max_tokens: 256,
        tools: anthropicTools,
        messages: [{ role: 'user', content: `weather in Oslo [${dialect}]` }],
      });
      assert.equal(message.stop_reason, 'tool_use');
      const use = message.content.find((block) => block.type === 'tool_use');
      assert.equal(use?.type === 'tool_use' ? use.name : undefined, 'get_weather');
      assert.deepEqual(use?.type === 'tool_use' ? use.input : undefined, { city: 'Oslo' });
      for (const block of message.content)
        if (block.type === 'text') assert.doesNotMatch(block.text, markupPattern);

      const stream = client.messages.stream({
        model: 'qwen2.5-7b-instruct',
        max_tokens: 256,
        tools: anthropicTools,
        messages: [{ role: 'user', content: `weather in Oslo [${dialect}]` }],
      });
      const final = await stream.finalMessage();
      assert.equal(final.stop_reason, 'tool_use');
      const streamedUse = final.content.find((block) => block.type === 'tool_use');
      assert.deepEqual(streamedUse?.type === 'tool_use' ? streamedUse.input : undefined, { city: 'Oslo' });
      for (const block of final.content)
        if (block.type === 'text') assert.doesNotMatch(block.text, markupPattern);
    });
  }

  it('the Anthropic SDK runs a tool round trip and reads thinking apart from text', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
    const first = await client.messages.create({
      model: 'qwen2.5-7b-instruct',
      max_tokens: 256,
      tools: anthropicTools,
      messages: [{ role: 'user', content: 'weather in Oslo [hermes]' }],
    });
    const use = first.content.find((block) => block.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    const second = await client.messages.create({
      model: 'qwen2.5-7b-instruct',
      max_tokens: 256,
      tools: anthropicTools,
      messages: [
        { role: 'user', content: 'weather in Oslo [hermes]' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '12 °C' }] },
      ],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(
      second.content.map((block) => block.type),
      ['text'],
    );
    const plain = await client.messages
      .stream({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] })
      .finalMessage();
    assert.deepEqual(
      plain.content.map((block) =>
        block.type === 'thinking'
          ? `thinking:${block.thinking}`
          : block.type === 'text'
            ? `text:${block.text}`
            : block.type,
      ),
      ['thinking:pondering', 'text:Just text.'],
    );
  });

  it('every client reads prose that only mentions a call as the text it is', async () => {
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: `${gateway.url}/v1` });
    const sdk = streamText({
      model: provider.chatModel('qwen2.5-7b-instruct'),
      prompt: 'tell me [mention]',
      tools: {
        get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(weatherTool.function.parameters) }),
      },
    });
    assert.equal(await sdk.text, mention);
    assert.deepEqual(await sdk.toolCalls, []);
    const langchain = new ChatOpenAI({
      model: 'qwen2.5',
      apiKey: 'unused',
      configuration: { baseURL: `${gateway.url}/v1` },
    }).bindTools([weatherTool]);
    const message = await langchain.invoke('tell me [mention]');
    assert.equal(message.content, mention);
    assert.deepEqual(message.tool_calls, []);
    const anthropic = await new Anthropic({ baseURL: gateway.url, apiKey: 'unused' }).messages.create({
      model: 'qwen2.5',
      max_tokens: 64,
      tools: anthropicTools,
      messages: [{ role: 'user', content: 'tell me [mention]' }],
    });
    assert.equal(anthropic.stop_reason, 'end_turn');
    assert.deepEqual(anthropic.content, [{ type: 'text', text: mention }]);
  });
});
