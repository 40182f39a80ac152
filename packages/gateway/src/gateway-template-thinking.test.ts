import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { chunkText } from '@toolbus/core/testing';
import OpenAI from 'openai';
import {
  type CannedUpstream,
  chunk,
  completion,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { readChatStream } from './__fixtures__/read-chat-stream.ts';
import { hermesCall, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// Reasoning models whose chat template opens the thinking in the prompt (DeepSeek R1 and its distills, QwQ, Qwen3's
// thinking releases) write only its close: `reasoning</think>\n\nanswer`. A server without a reasoning parser
// (vLLM without --reasoning-parser, a plain llama.cpp) hands that text over as content, `</think>` and all. The
// gateway moves the thinking to `reasoning_content`: as it streams for those models, and in any whole answer.
const thinking = 'The user greets me; a short greeting back will do.\n';
const answerText = `${thinking}</think>\n\nHello there!`;

describe('thinking the chat template opened', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let client: OpenAI;

  before(async () => {
    upstream = await startCannedUpstream((_path, body) => {
      const tools = Array.isArray(body.tools) && body.tools.length > 0;
      const text = tools ? `${thinking}</think>\n\n${hermesCall('Oslo')}` : answerText;
      if (body.stream !== true) return { status: 200, json: completion({ content: text }) };
      return {
        events: [
          chunk({ role: 'assistant', content: '' }),
          ...chunkText(text, 4).map((piece) => chunk({ content: piece })),
          chunk({}, { finish: 'stop' }),
        ],
      };
    });
    gateway = await startGateway({ upstreams: [{ name: 'canned', baseUrl: upstream.baseUrl }] });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const model of ['deepseek-r1-distill-qwen-7b', 'qwq:32b', 'Qwen/Qwen3-30B-A3B-Thinking-2507']) {
    it(`streams ${model}'s thinking as reasoning_content, never as content`, async () => {
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const { content, reasoning } = await readChatStream(stream);
      assert.equal(content.trim(), 'Hello there!');
      assert.equal(reasoning, thinking);
    });
  }

  it('splits a lone </think> off a whole answer, whatever the model', async () => {
    const completed = await client.chat.completions.create({
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const message = completed.choices[0]?.message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
    };
    assert.equal(message.content, 'Hello there!');
    assert.equal(message.reasoning_content?.trim(), thinking.trim());
  });

  it('recovers the call after the thinking, streaming, with the thinking as reasoning', async () => {
    const stream = await client.chat.completions.create({
      model: 'deepseek-r1-distill-qwen-14b',
      stream: true,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
    });
    const { content, reasoning, calls, finish } = await readChatStream(stream);
    assert.equal(finish, 'tool_calls');
    assert.deepEqual(
      calls.map((call) => [call.name, JSON.parse(call.arguments)]),
      [['get_weather', { city: 'Oslo' }]],
    );
    assert.equal(reasoning, thinking);
    assert.equal(content.trim(), '');
  });

  it('gives the Anthropic SDK the thinking as a thinking block, streaming and not', async () => {
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
    const ask = {
      model: 'deepseek-r1',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    for (const message of [
      await anthropic.messages.create(ask),
      await anthropic.messages.stream(ask).finalMessage(),
    ]) {
      const blocks = message.content.map((block) =>
        block.type === 'thinking'
          ? ['thinking', block.thinking.trim()]
          : block.type === 'text'
            ? ['text', block.text.trim()]
            : [block.type],
      );
      assert.deepEqual(blocks, [
        ['thinking', thinking.trim()],
        ['text', 'Hello there!'],
      ]);
    }
  });
});
