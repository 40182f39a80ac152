import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, ToolDefinition } from '@toolbus/spec';
import { chunkText, splitTextAt, startScriptedModelServer, textSteps } from '../testing/index.ts';
import {
  collectEvents,
  lastEvent,
  reasoningOf,
  scriptedModel,
  scriptedProviders,
  textOf,
  useQueuedModelServer,
} from './__fixtures__/scripted-providers.ts';
import { ModelAbortedError, ModelRequestError, ModelStallError, ModelStreamError } from './model-errors.ts';
import type { ModelStreamEvent } from './model-stream-event.ts';
import { streamModelStep } from './stream-model-step.ts';

const question: ChatMessage[] = [{ role: 'user', content: 'What is the weather in Oslo and Bergen?' }];
const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function toolCallEnds(events: readonly ModelStreamEvent[]) {
  return events.filter((event) => event.type === 'tool-call-end');
}

for (const provider of scriptedProviders) {
  describe(`streamModelStep over ${provider}`, () => {
    const { turns, server } = useQueuedModelServer();

    const run = (options: Partial<Parameters<typeof streamModelStep>[0]> = {}) =>
      collectEvents(
        streamModelStep({
          model: scriptedModel({ provider, serverUrl: server().url }),
          messages: question,
          tools: [weatherTool],
          retryDelayMs: 5,
          ...options,
        }),
      );

    it('streams text split at every position, unchanged and in order', async () => {
      const text = 'Oslo: 12 °C, "cloudy" {not a call}\nBergen: rain 🌧 all day.';
      for (let position = 1; position < text.length; position += 3) {
        turns.push(textSteps(splitTextAt(text, [position, position + 1, position + 7])));
        const events = await run();
        assert.equal(textOf(events), text);
        const finish = lastEvent(events);
        assert.equal(finish.type, 'finish');
        assert.equal(finish.type === 'finish' && finish.finishReason, 'stop');
      }
      turns.push(textSteps(chunkText(text, 1)));
      assert.equal(textOf(await run()), text);
    });

    it('passes text-written tool calls through as text (recovery is a later layer)', async () => {
      const written = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
      turns.push(textSteps(chunkText(written, 5)));
      const events = await run();
      assert.equal(textOf(events), written);
      assert.equal(toolCallEnds(events).length, 0);
    });

    it('assembles parallel native tool calls per call, arguments split anywhere, ended before the finish', async () => {
      const calls = [
        { id: 'call_a', arguments: { city: 'Oslo', note: 'brace } and "quote" inside' } },
        { id: 'call_b', arguments: { city: 'Bergen' } },
        { id: 'call_c', arguments: { city: 'Tromsø', days: [1, 2, { nested: true }] } },
      ];
      for (const chunkSize of [1, 2, 5, 1000]) {
        turns.push([
          { type: 'text', text: 'Checking both.' },
          ...calls.map((call) => ({
            type: 'tool-call' as const,
            id: call.id,
            name: 'get_weather',
            arguments: call.arguments,
            chunkSize,
          })),
        ]);
        const events = await run();
        const ends = toolCallEnds(events);
        assert.deepEqual(
          ends.map((end) => ({
            index: end.index,
            id: end.id,
            name: end.name,
            args: JSON.parse(end.rawArguments),
          })),
          calls.map((call, index) => ({ index, id: call.id, name: 'get_weather', args: call.arguments })),
        );
        const starts = events.filter((event) => event.type === 'tool-call-start');
        assert.deepEqual(
          starts.map((start) => start.index),
          [0, 1, 2],
        );
        for (const end of ends) {
          const deltas = events
            .filter((event) => event.type === 'tool-call-delta' && event.id === end.id)
            .map((event) => (event.type === 'tool-call-delta' ? event.argumentsDelta : ''))
            .join('');
          assert.equal(deltas, end.rawArguments);
        }
        const finish = lastEvent(events);
        assert.equal(finish.type === 'finish' && finish.finishReason, 'tool-calls');
        // Each call ends before the next one starts: a tool can run while the model still writes the others.
        const order = events.map((event) => `${event.type}:${'index' in event ? event.index : ''}`);
        assert.ok(order.indexOf('tool-call-end:0') < order.indexOf('tool-call-start:1'));
        assert.ok(order.indexOf('tool-call-end:1') < order.indexOf('tool-call-start:2'));
      }
    });

    it('emits tool-call-end while the model is still streaming', async () => {
      turns.push([
        {
          type: 'tool-call',
          id: 'call_first',
          name: 'get_weather',
          arguments: { city: 'Oslo' },
          chunkSize: 3,
        },
        // The server holds the response open; the first call must be reported anyway.
        { type: 'delay', ms: 60_000 },
        { type: 'tool-call', id: 'call_second', name: 'get_weather', arguments: { city: 'Bergen' } },
      ]);
      const controller = new AbortController();
      const seen: ModelStreamEvent[] = [];
      for await (const event of streamModelStep({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: question,
        tools: [weatherTool],
        signal: controller.signal,
      })) {
        seen.push(event);
        if (event.type === 'tool-call-end') {
          const request = server().requests.at(-1);
          assert.equal(request?.outcome, 'pending', 'the server has not finished the response');
          controller.abort();
        }
      }
      const end = seen.find((event) => event.type === 'tool-call-end');
      assert.equal(end?.type === 'tool-call-end' && end.rawArguments, '{"city":"Oslo"}');
      assert.ok(!seen.some((event) => event.type === 'finish'));
      const last = lastEvent(seen);
      assert.ok(last.type === 'error' && ModelAbortedError.isInstance(last.error));
    });

    it('reports the finish reason and usage the provider sent', async () => {
      turns.push([
        { type: 'text', text: 'cut o' },
        { type: 'finish', reason: 'length', usage: { inputTokens: 42, outputTokens: 7 } },
      ]);
      const finish = lastEvent(await run());
      assert.ok(finish.type === 'finish');
      assert.equal(finish.finishReason, 'length');
      assert.equal(finish.rawFinishReason, provider === 'anthropic' ? 'max_tokens' : 'length');
      assert.equal(finish.usage.inputTokens, 42);
      assert.equal(finish.usage.outputTokens, 7);
    });

    it('turns malformed wire data into a typed error event', async () => {
      turns.push([
        { type: 'text', text: 'fine so far' },
        { type: 'raw', data: 'data: {"choices": [{"delta": \n\n' },
      ]);
      const events = await run();
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelStreamError.isInstance(last.error), JSON.stringify(last));
      assert.equal(last.error.code, 'model_stream_error');
    });

    it('makes no request when the signal is already aborted', async () => {
      const before = server().requests.length;
      const events = await run({ signal: AbortSignal.abort() });
      assert.equal(events.length, 1);
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelAbortedError.isInstance(last.error));
      assert.equal(server().requests.length, before);
    });

    if (provider !== 'anthropic') {
      it('assembles tool calls whose argument deltas interleave by index', async () => {
        turns.push([
          { type: 'tool-call-start', index: 0, id: 'call_x', name: 'get_weather' },
          { type: 'tool-call-delta', index: 0, argumentsDelta: '{"ci' },
          { type: 'tool-call-start', index: 1, id: 'call_y', name: 'get_weather' },
          { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":' },
          { type: 'tool-call-delta', index: 0, argumentsDelta: 'ty": "Oslo"}' },
          { type: 'tool-call-delta', index: 1, argumentsDelta: ' "Bergen"}' },
        ]);
        const events = await run();
        assert.deepEqual(
          toolCallEnds(events).map((end) => [end.index, end.id, JSON.parse(end.rawArguments)]),
          [
            [0, 'call_x', { city: 'Oslo' }],
            [1, 'call_y', { city: 'Bergen' }],
          ],
        );
      });
    }

    it('keeps reasoning separate from the answer', async () => {
      turns.push([
        { type: 'reasoning', text: 'The user asks about ' },
        { type: 'reasoning', text: 'two cities.' },
        { type: 'text', text: 'Both are ' },
        { type: 'text', text: 'rainy.' },
      ]);
      const events = await run();
      assert.equal(textOf(events), 'Both are rainy.');
      // The official OpenAI package has no reasoning field in Chat Completions; the others carry it.
      assert.equal(reasoningOf(events), provider === 'openai' ? '' : 'The user asks about two cities.');
    });

    it('retries a stall before the first chunk, then succeeds', async () => {
      const before = server().requests.length;
      turns.push(
        [
          { type: 'delay', ms: 30_000 },
          { type: 'text', text: 'too late' },
        ],
        [{ type: 'text', text: 'on time' }],
      );
      const events = await run({ firstChunkTimeoutMs: 300 });
      assert.equal(textOf(events), 'on time');
      assert.equal(server().requests.length - before, 2);
      const stalled = server().requests[before];
      assert.ok(stalled !== undefined);
      assert.equal(await server().settled(stalled), 'client-closed');
    });

    it('retries a stream that opened but stalled before any output', async () => {
      const before = server().requests.length;
      // An empty raw step makes the server send its headers and opening event, then nothing.
      turns.push(
        [
          { type: 'raw', data: '' },
          { type: 'delay', ms: 30_000 },
        ],
        [{ type: 'text', text: 'recovered' }],
      );
      const events = await run({ firstChunkTimeoutMs: 300 });
      assert.equal(textOf(events), 'recovered');
      assert.equal(server().requests.length - before, 2);
    });

    it('turns a stall after output into a ModelStallError event, without retrying', async () => {
      const before = server().requests.length;
      turns.push([
        { type: 'text', text: 'partial ' },
        { type: 'delay', ms: 30_000 },
        { type: 'text', text: 'rest' },
      ]);
      const events = await run({ chunkTimeoutMs: 300 });
      assert.equal(textOf(events), 'partial ');
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelStallError.isInstance(last.error));
      assert.equal(last.error.phase, 'between-chunks');
      assert.equal(last.error.code, 'model_stall');
      assert.equal(server().requests.length - before, 1);
    });

    it('reports HTTP 500 as an error event after the retries', async () => {
      const before = server().requests.length;
      for (let attempt = 0; attempt < 3; attempt += 1)
        turns.push([{ type: 'http-error', status: 500, message: 'boom' }]);
      const events = await run({ maxRetriesBeforeFirstChunk: 2 });
      assert.equal(server().requests.length - before, 3);
      assert.equal(events.length, 1);
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelRequestError.isInstance(last.error));
      assert.equal(last.error.statusCode, 500);
      assert.equal(last.error.code, 'model_request_failed');
    });

    it('retries a connection dropped before any output, and reports one dropped after output', async () => {
      const before = server().requests.length;
      turns.push([{ type: 'drop' }], [{ type: 'text', text: 'second try' }]);
      assert.equal(textOf(await run()), 'second try');
      assert.equal(server().requests.length - before, 2);

      turns.push([{ type: 'text', text: 'half' }, { type: 'delay', ms: 50 }, { type: 'drop' }]);
      const events = await run();
      assert.equal(textOf(events), 'half');
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelStreamError.isInstance(last.error), JSON.stringify(last));
      assert.equal(server().requests.length - before, 3);
    });

    it('stops promptly on abort, and the server sees the connection closed', async () => {
      turns.push([
        { type: 'text', text: 'first words' },
        { type: 'delay', ms: 60_000 },
        { type: 'text', text: 'never' },
      ]);
      const controller = new AbortController();
      const events: ModelStreamEvent[] = [];
      for await (const event of streamModelStep({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: question,
        signal: controller.signal,
      })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
      assert.equal(textOf(events), 'first words');
      const last = lastEvent(events);
      assert.ok(last.type === 'error' && ModelAbortedError.isInstance(last.error));
      const request = server().requests.at(-1);
      assert.ok(request !== undefined);
      assert.equal(await server().settled(request), 'client-closed');
    });

    it('closes the connection when the consumer stops reading early', async () => {
      turns.push([
        { type: 'text', text: 'one' },
        { type: 'delay', ms: 60_000 },
        { type: 'text', text: 'two' },
      ]);
      for await (const event of streamModelStep({
        model: scriptedModel({ provider, serverUrl: server().url }),
        messages: question,
      })) {
        if (event.type === 'text-delta') break;
      }
      const request = server().requests.at(-1);
      assert.ok(request !== undefined);
      assert.equal(await server().settled(request), 'client-closed');
    });

    it('sends history with tool calls and results that the strict server accepts', async () => {
      const history: ChatMessage[] = [
        { role: 'system', content: 'You are a weather bot.' },
        ...question,
        {
          role: 'assistant',
          content: 'Let me check.',
          toolCalls: [
            { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_2', name: 'get_weather', arguments: { city: 'Bergen' } },
            { id: 'call_3', name: 'get_weather', arguments: { city: 'Tromsø' } },
          ],
        },
        { role: 'tool', toolCallId: 'call_2', toolName: 'get_weather', content: 'Bergen: rain' },
        { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: 'Oslo: 12 °C' },
        // call_3 never got a result, and this one answers a call that is not in history (trimmed away).
        { role: 'tool', toolCallId: 'call_gone', toolName: 'get_weather', content: 'orphan' },
        { role: 'user', content: 'And tomorrow?' },
      ];
      turns.push([{ type: 'text', text: 'Tomorrow too.' }]);
      const failuresBefore = server().failures.length;
      const events = await run({ messages: history });
      assert.deepEqual(server().failures.slice(failuresBefore), []);
      assert.equal(textOf(events), 'Tomorrow too.');
      const request = server().requests.at(-1);
      assert.ok(request !== undefined);
      assert.deepEqual(request.toolNames, ['get_weather']);
      const assistant = request.messages.find((message) => message.role === 'assistant');
      assert.deepEqual(
        assistant?.toolCalls.map((call) => [call.id, JSON.parse(call.arguments)]),
        [
          ['call_1', { city: 'Oslo' }],
          ['call_2', { city: 'Bergen' }],
          ['call_3', { city: 'Tromsø' }],
        ],
      );
      const results = request.messages.flatMap((message) => message.toolResults);
      assert.deepEqual(
        results.map((result) => result.toolCallId),
        ['call_2', 'call_1', 'call_3'],
      );
      assert.match(results[2]?.content ?? '', /not executed/);
      assert.equal(request.lastMessage?.text, 'And tomorrow?');
    });
  });
}

describe('streamModelStep authentication', () => {
  it('reports 401 as an error event without retrying and without the key in the message', async () => {
    const server = await startScriptedModelServer({
      apiKey: 'the-right-key',
      turns: [[{ type: 'text', text: 'hi' }]],
    });
    try {
      for (const provider of scriptedProviders) {
        const before = server.requests.length;
        const events = await collectEvents(
          streamModelStep({
            model: scriptedModel({ provider, serverUrl: server.url, apiKey: 'sk-wrong-secret-value' }),
            messages: question,
            retryDelayMs: 5,
          }),
        );
        assert.equal(server.requests.length - before, 1, provider);
        const last = lastEvent(events);
        assert.ok(last.type === 'error' && ModelRequestError.isInstance(last.error));
        assert.equal(last.error.code, 'model_authentication_failed');
        assert.equal(last.error.statusCode, 401);
        assert.ok(!last.error.message.includes('sk-wrong-secret-value'));
        const request = server.requests.at(-1);
        assert.ok(request?.headerNames.includes(provider === 'anthropic' ? 'x-api-key' : 'authorization'));
        assert.ok(
          !JSON.stringify(request).includes('sk-wrong-secret-value'),
          'header values are not recorded',
        );
      }
    } finally {
      await server.close();
    }
  });
});
