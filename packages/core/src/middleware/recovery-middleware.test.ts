import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { createRecoveryMiddleware, recoveryMiddleware } from './recovery-middleware.ts';

// The middleware's functions are called directly here, exactly as wrapLanguageModel calls them, around a model
// object implementing the LanguageModelV4 contract that replays scripted parts (the contract is the AI SDK's own
// interface, not ours); recovery-middleware-ai-sdk.test.ts runs it inside the real `ai` package.
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
} as LanguageModelV4GenerateResult['usage'];

function replayModel(options: {
  content: LanguageModelV4Content[];
  parts: LanguageModelV4StreamPart[];
  finish?: 'stop' | 'length';
}): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'replay',
    modelId: 'replay-1',
    supportedUrls: {},
    async doGenerate() {
      return {
        content: options.content,
        finishReason: { unified: options.finish ?? 'stop', raw: options.finish ?? 'stop' },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      const parts = options.parts;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

const params: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }],
  tools: [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      },
    },
  ],
};

function textParts(
  deltas: readonly string[],
  finish: 'stop' | 'length' = 'stop',
): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    { type: 'finish', usage, finishReason: { unified: finish, raw: finish } },
  ];
}

async function wrapStream(
  model: LanguageModelV4,
  middleware = recoveryMiddleware,
  callParams: LanguageModelV4CallOptions = params,
): Promise<LanguageModelV4StreamPart[]> {
  const result: LanguageModelV4StreamResult = await middleware.wrapStream!({
    doGenerate: () => model.doGenerate(callParams),
    doStream: () => model.doStream(callParams),
    params: callParams,
    model,
  });
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = result.stream.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

function visibleText(parts: readonly LanguageModelV4StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
}

const sequentialIds = () => {
  let next = 0;
  return () => `call_${next++}`;
};

describe('recoveryMiddleware', () => {
  it('wrapGenerate turns XML written as text into a tool-call part and removes the markup', async () => {
    const model = replayModel({
      content: [
        {
          type: 'text',
          text: 'Let me check. <function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter><parameter name="days">2</parameter></invoke></function_calls>',
        },
      ],
      parts: [],
    });
    const middleware = createRecoveryMiddleware({ generateId: sequentialIds() });
    const result = await middleware.wrapGenerate!({
      doGenerate: () => model.doGenerate(params),
      doStream: () => model.doStream(params),
      params,
      model,
    });
    assert.deepEqual(result.content, [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', toolCallId: 'call_0', toolName: 'get_weather', input: '{"city":"Oslo","days":2}' },
    ]);
    assert.equal(result.finishReason.unified, 'tool-calls');
  });

  it('wrapGenerate leaves native tool calls and plain answers alone', async () => {
    const native: LanguageModelV4Content[] = [
      { type: 'text', text: '{"name": "get_weather", "arguments": {"city": "Oslo"}}' },
      { type: 'tool-call', toolCallId: 'n1', toolName: 'get_weather', input: '{"city":"Rome"}' },
    ];
    for (const content of [native, [{ type: 'text', text: 'It is sunny.' }] as LanguageModelV4Content[]]) {
      const model = replayModel({ content, parts: [] });
      const result = await recoveryMiddleware.wrapGenerate!({
        doGenerate: () => model.doGenerate(params),
        doStream: () => model.doStream(params),
        params,
        model,
      });
      assert.deepEqual(result.content, content);
      assert.equal(result.finishReason.unified, 'stop');
    }
  });

  it('wrapStream filters markup split across deltas and appends tool-call parts before finish', async () => {
    const text =
      'Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call> Done.';
    const deltas = text.match(/.{1,3}/gs)!;
    const parts = await wrapStream(
      replayModel({ content: [], parts: textParts(deltas) }),
      createRecoveryMiddleware({ generateId: sequentialIds() }),
    );
    assert.equal(visibleText(parts), 'Checking. Done.');
    const types = parts.map((part) => part.type);
    assert.deepEqual(types.slice(-3), ['text-end', 'tool-call', 'finish']);
    const call = parts.find((part) => part.type === 'tool-call');
    assert.deepEqual(call, {
      type: 'tool-call',
      toolCallId: 'call_0',
      toolName: 'get_weather',
      input: '{"city":"Oslo"}',
    });
    const finish = parts.at(-1);
    assert.equal(finish?.type === 'finish' && finish.finishReason.unified, 'tool-calls');
  });

  it('wrapStream holds a bare JSON answer and never shows it when it is a call', async () => {
    const parts = await wrapStream(
      replayModel({
        content: [],
        parts: textParts(['{"name": "get_wea', 'ther", "arguments": {"city": "Oslo"}}']),
      }),
    );
    assert.equal(visibleText(parts), '');
    assert.equal(parts.filter((part) => part.type === 'tool-call').length, 1);
  });

  it('wrapStream passes a plain answer through unchanged, including JSON that is not a call', async () => {
    const plain = await wrapStream(
      replayModel({ content: [], parts: textParts(['It is ', 'sunny ', 'in Oslo.']) }),
    );
    assert.equal(visibleText(plain), 'It is sunny in Oslo.');
    assert.equal(plain.at(-1)?.type, 'finish');
    assert.equal(plain.filter((part) => part.type === 'tool-call').length, 0);
    const data = await wrapStream(
      replayModel({ content: [], parts: textParts(['{"temperature": ', '21}']) }),
    );
    assert.equal(visibleText(data), '{"temperature": 21}');
  });

  it('does not recover calls when the caller set toolChoice to none', async () => {
    const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    const parts = await wrapStream(
      replayModel({ content: [], parts: textParts([text]) }),
      recoveryMiddleware,
      {
        ...params,
        toolChoice: { type: 'none' },
      },
    );
    assert.equal(visibleText(parts), text);
    assert.equal(parts.filter((part) => part.type === 'tool-call').length, 0);
  });

  it('recovers a call written in the reasoning when the answer has none', async () => {
    const parts = await wrapStream(
      replayModel({
        content: [],
        parts: [
          { type: 'reasoning-start', id: 'r1' },
          { type: 'reasoning-delta', id: 'r1', delta: 'I will call <tool_call>{"name": "get_weather", ' },
          { type: 'reasoning-delta', id: 'r1', delta: '"arguments": {"city": "Oslo"}}</tool_call>' },
          { type: 'reasoning-end', id: 'r1' },
          { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
        ],
      }),
      createRecoveryMiddleware({ generateId: sequentialIds() }),
    );
    assert.deepEqual(
      parts.filter((part) => part.type === 'tool-call'),
      [{ type: 'tool-call', toolCallId: 'call_0', toolName: 'get_weather', input: '{"city":"Oslo"}' }],
    );
  });

  it('an answer the token limit cut: the call it cut is not made, the one before it is, the finish stays length', async () => {
    const text =
      '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"city": "Ber';
    const oslo = {
      type: 'tool-call',
      toolCallId: 'call_0',
      toolName: 'get_weather',
      input: '{"city":"Oslo"}',
    };
    const model = replayModel({
      content: [{ type: 'text', text }],
      parts: textParts(text.match(/.{1,7}/gs) ?? [], 'length'),
      finish: 'length',
    });
    const generated = await createRecoveryMiddleware({ generateId: sequentialIds() }).wrapGenerate!({
      doGenerate: () => model.doGenerate(params),
      doStream: () => model.doStream(params),
      params,
      model,
    });
    assert.deepEqual(generated.content, [oslo]);
    assert.equal(generated.finishReason.unified, 'length');
    const parts = await wrapStream(model, createRecoveryMiddleware({ generateId: sequentialIds() }));
    assert.deepEqual(
      parts.filter((part) => part.type === 'tool-call'),
      [oslo],
    );
    const finish = parts.at(-1);
    assert.equal(finish?.type === 'finish' && finish.finishReason.unified, 'length');
    assert.equal(visibleText(parts), '');
  });
});
