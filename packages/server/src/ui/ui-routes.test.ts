import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import type { Storage } from '@toolbus/storage';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { lookupThenAnswer, lookupToolFactories, openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { UI_CHAT_PATH } from './ui-routes.ts';

let model: ScriptedModelServer;
let storage: Storage;
let http: ListeningServer;

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  ({ storage } = await openTestStorage());
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => lookupToolFactories(),
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
});

test("useChat's own transport and the ai package's stream reader read a toolbus turn", async () => {
  const chat = (await (
    await fetch(`${http.url}/v1/chats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as { id: string };
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
