import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defineTool } from '@toolbus/core';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { ToolCallError, ToolExecutionError } from '@toolbus/spec';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { z } from 'zod';
import {
  lookupThenAnswer,
  lookupToolFactories,
  type ScriptedTestServer,
  startScriptedTestServer,
} from '../__fixtures__/test-server.ts';
import { UI_CHAT_PATH } from './ui-routes.ts';

let world: ScriptedTestServer;

before(async () => {
  world = await startScriptedTestServer({
    handler: lookupThenAnswer(),
    toolFactories: () => lookupToolFactories(),
  });
});
after(() => world.close());

test("useChat's own transport and the ai package's stream reader read a toolbus turn", async () => {
  const { http, storage } = world;
  const chat = { id: await world.newChat() };
  const raw = await fetch(`${http.url}${UI_CHAT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: chat.id,
      messages: [{ id: 'u0', role: 'user', parts: [{ type: 'text', text: 'Refunds?' }] }],
    }),
  });
  assert.equal(raw.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  assert.match(await raw.text(), /data: \[DONE\]\n\n$/);

  // What useChat does: the DefaultChatTransport posts the messages, then readUIMessageStream builds the message.
  const transport = new DefaultChatTransport<UIMessage>({ api: `${http.url}${UI_CHAT_PATH}` });
  const errors: unknown[] = [];
  const chunks = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: chat.id,
    messageId: undefined,
    abortSignal: undefined,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'How long do refunds take?' }] }],
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({
    stream: chunks,
    onError: (error) => errors.push(error),
  })) {
    last = message;
  }
  assert.deepEqual(errors, []);
  assert.ok(last);
  assert.equal(last.role, 'assistant');
  assert.equal(last.id, `${chat.id}:1`);
  const tool = last.parts.find((part) => part.type === 'tool-lookup') as
    | { state: string; input: { query: string }; output: unknown }
    | undefined;
  assert.ok(tool, JSON.stringify(last.parts));
  assert.equal(tool.state, 'output-available');
  assert.equal(tool.input.query, 'How long do refunds take?');
  const texts = last.parts
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text);
  assert.equal(texts[0]?.trim(), 'Let me look that up.');
  assert.match(texts.at(-1) ?? '', /Refunds take fourteen days/);
  // The turn is toolbus's own: history written, and resume answers 204 once nothing runs.
  const turn = await storage.chats.getTurn({ chatId: chat.id, turn: 1 });
  assert.equal(turn?.status, 'completed');
  assert.equal((await fetch(`${http.url}${UI_CHAT_PATH}/${chat.id}/stream`)).status, 204);
});

/**
 * A second server whose `lookup` fails for "fail" and runs until stopped for "slow", and whose model reasons first:
 * the cases `useChat` must read without a protocol error.
 */
describe('the UI message stream of tool errors, reasoning and stops, read by the ai package', () => {
  let edge: ScriptedTestServer;
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a fact up.',
    parameters: z.object({ query: z.string() }),
    run: async ({ query }, context) => {
      if (query === 'fail') throw new ToolExecutionError({ message: 'The fact store is down.' });
      if (query === 'vague')
        throw new ToolCallError({ message: 'too vague', modelMessage: 'Name the fact you want.' });
      if (query === 'slow') {
        await new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
        });
      }
      return `Fact about ${query}.`;
    },
  });

  before(async () => {
    edge = await startScriptedTestServer({
      toolFactories: () => new Map([['SearchTool', () => lookup]]),
      handler: (request: ScriptedRequest): ScriptedStep[] => {
        const question = request.messages.findLast((message) => message.role === 'user')?.text ?? '';
        if (request.messages.at(-1)?.role === 'tool')
          return [{ type: 'text', text: 'Here is what I found.' }];
        if (question.includes('as text'))
          return [
            // A call namespaced `default_api.` in the middle of a line of prose is shown as it streams, then
            // retracted (message-replace) when the step ends. (A JSON or `functions.` call there, or one on a line
            // of its own, is held back and never shown.)
            { type: 'text', text: 'Checking. default_api.lookup(' },
            { type: 'text', text: 'query="fine")' },
          ];
        if (question.includes('two tools'))
          return [
            { type: 'tool-call', id: 'call_vague', name: 'lookup', arguments: { query: 'vague' } },
            { type: 'tool-call', id: 'call_ghost', name: 'no_such_tool', arguments: {} },
          ];
        const query = question.includes('fail') ? 'fail' : question.includes('slow') ? 'slow' : 'fine';
        return [
          { type: 'reasoning', text: 'The user wants a fact; ' },
          { type: 'reasoning', text: 'I will look it up.' },
          { type: 'text', text: 'Looking. ' },
          { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: { query } },
        ];
      },
    });
  });
  after(() => edge.close());

  /** Sends `text` as useChat does and reads the answer with the ai package's reader; `onMessage` sees each state. */
  async function ask(chatId: string, text: string, onMessage?: (message: UIMessage) => Promise<void>) {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${edge.http.url}${UI_CHAT_PATH}` });
    const chunks = await transport.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
    });
    // Every chunk passed the ai package's own chunk schema on its way here (the transport parses with it).
    const [forReader, forTypes] = chunks.tee();
    const errors: unknown[] = [];
    let last: UIMessage | undefined;
    const types: string[] = [];
    const collecting = (async () => {
      const reader = forTypes.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read())
        types.push(next.value.type);
    })();
    for await (const message of readUIMessageStream<UIMessage>({
      stream: forReader,
      onError: (error) => errors.push(error),
    })) {
      last = message;
      await onMessage?.(message);
    }
    await collecting;
    assert.deepEqual(errors, []);
    assert.ok(last);
    return { message: last, types };
  }

  type ToolPart = { type: string; state: string; input?: unknown; output?: unknown; errorText?: string };
  const toolPart = (message: UIMessage) =>
    message.parts.find((part) => part.type === 'tool-lookup') as ToolPart | undefined;

  test("an app's own body fields are ignored, as useChat sends them; an unknown chat is named as body.id", async () => {
    const post = (body: unknown) =>
      fetch(`${edge.http.url}${UI_CHAT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const messages = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'A fine fact?' }] }];
    const missing = await post({ id: 'no-such-chat', messages });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { field: string } }).error.field, 'body.id');
    const chatId = await edge.newChat();
    const accepted = await post({ id: chatId, messages, trigger: 'submit-message', customerTier: 'gold' });
    assert.equal(accepted.status, 200);
    assert.match(await accepted.text(), /"type":"finish"[^\n]*\n\ndata: \[DONE\]\n\n$/);
    const refused = await post({ id: chatId, messages, maxCycles: 'many' });
    assert.equal(((await refused.json()) as { error: { field: string } }).error.field, 'body.maxCycles');
  });

  test('reasoning and a tool call: reasoning, text, the tool with its output, then the answer', async () => {
    const { message, types } = await ask(await edge.newChat(), 'A fine fact?');
    const reasoning = message.parts.find((part) => part.type === 'reasoning') as { text: string } | undefined;
    assert.equal(reasoning?.text, 'The user wants a fact; I will look it up.');
    assert.equal(toolPart(message)?.state, 'output-available');
    assert.deepEqual(toolPart(message)?.input, { query: 'fine' });
    // The output is the tool-end packet's: what the model read, and how the call ended.
    assert.deepEqual(
      { ...(toolPart(message)?.output as object), durationMs: 0 },
      { status: 'success', result: 'Fact about fine.', durationMs: 0, events: [] },
    );
    const texts = message.parts
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text);
    assert.equal(texts.at(-1), 'Here is what I found.');
    assert.equal(types[0], 'start');
    assert.equal(types.at(-1), 'finish');
    assert.ok(types.indexOf('reasoning-start') < types.indexOf('reasoning-end'));
    assert.ok(types.indexOf('reasoning-end') < types.indexOf('tool-input-start'));
  });

  test('a tool call the model wrote as text: useChat shows the text without it, then the recovered call', async () => {
    const { message, types } = await ask(await edge.newChat(), 'Call it as text.');
    assert.ok(types.includes('reset-step'), types.join(' '));
    const shown = message.parts.map((part) =>
      part.type === 'text' ? `text:${part.text.trim()}` : part.type,
    );
    assert.deepEqual(shown, [
      'step-start',
      'text:Checking.',
      'tool-lookup',
      'step-start',
      'text:Here is what I found.',
    ]);
    assert.equal(toolPart(message)?.state, 'output-available');
    assert.ok(!JSON.stringify(message.parts).includes('tool_call'), JSON.stringify(message.parts));
  });

  test('a tool that fails: its part ends in output-error with the message, and the turn goes on', async () => {
    const { message, types } = await ask(await edge.newChat(), 'Please fail.');
    const tool = toolPart(message);
    assert.equal(tool?.state, 'output-error', JSON.stringify(message.parts));
    assert.match(tool?.errorText ?? '', /The fact store is down/);
    assert.ok(types.includes('tool-output-error'));
    assert.ok(!types.includes('tool-output-available'));
    assert.equal(types.at(-1), 'finish');
  });

  test('a refused call and a call of an unknown tool each end in output-error with what the model was told', async () => {
    const { message } = await ask(await edge.newChat(), 'Use two tools.');
    const parts = message.parts.filter((part) => part.type.startsWith('tool-')) as (ToolPart & {
      toolCallId: string;
    })[];
    assert.deepEqual(
      parts.map((part) => [part.type, part.toolCallId, part.state]),
      [
        ['tool-lookup', 'call_vague', 'output-error'],
        ['tool-no_such_tool', 'call_ghost', 'output-error'],
      ],
    );
    assert.equal(parts[0]?.errorText, 'Name the fact you want.');
    assert.match(parts[1]?.errorText ?? '', /no tool named "no_such_tool"/);
  });

  test('a stop mid-tool: the tool part ends in output-error and the stream ends with abort', async () => {
    const chatId = await edge.newChat();
    let stopped = false;
    const { message, types } = await ask(chatId, 'Be slow.', async (current) => {
      if (stopped || toolPart(current)?.state !== 'input-available') return;
      stopped = true;
      const response = await fetch(`${edge.http.url}/v1/chats/${chatId}/turns/0/stop`, { method: 'POST' });
      assert.deepEqual(await response.json(), { stopped: true });
    });
    assert.ok(stopped);
    assert.equal(toolPart(message)?.state, 'output-error', JSON.stringify(message.parts));
    assert.equal(types.at(-1), 'abort');
    assert.ok(!types.includes('finish'));
    const turn = await edge.storage.chats.getTurn({ chatId, turn: 0 });
    assert.equal(turn?.status, 'stopped');
    // The history pairs the stopped call with a result, so the next turn's request is valid for the model.
    const history = (await edge.storage.chats.listMessages(chatId)).map((stored) => stored.message);
    assert.ok(history.some((entry) => entry.role === 'tool' && entry.toolCallId === 'call_1'));
    const next = await ask(chatId, 'A fine fact?');
    assert.equal(toolPart(next.message)?.state, 'output-available');
  });
});
