// Turn errors as useChat sees them: the ai package's own chat (AbstractChat, what useChat wraps) over its
// DefaultChatTransport and real HTTP. A failed turn puts the chat in its error state with the turn's message; an
// error the turn goes on after is a data part, and the answer after it still arrives.
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { ScriptedStep } from '@toolbus/core/testing';
import type { Packet, Placement } from '@toolbus/spec';
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage } from 'ai';
import {
  lookupToolFactories,
  type ScriptedTestServer,
  startScriptedTestServer,
} from '../__fixtures__/test-server.ts';
import { toUiMessageChunks } from './ui-message-chunks.ts';
import { uiMessageStreamResponse } from './ui-message-stream-response.ts';
import { UI_CHAT_PATH } from './ui-routes.ts';

/** The plainest chat state (what @ai-sdk/react keeps in React state). */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((current, at) => (at === index ? message : current));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class TestChat extends AbstractChat<UIMessage> {
  readonly plain: PlainChatState;
  constructor(options: { id: string; api: string }) {
    const state = new PlainChatState();
    super({ id: options.id, transport: new DefaultChatTransport({ api: options.api }), state });
    this.plain = state;
  }
}

/** Asks `text` as useChat's sendMessage does and waits for the answer; the chat's status, error and answer. */
async function ask(chat: TestChat, text: string) {
  await chat.sendMessage({ text });
  const answer = chat.plain.messages.at(-1);
  assert.equal(answer?.role, 'assistant', JSON.stringify(chat.plain.messages));
  const texts = answer.parts.filter((part) => part.type === 'text').map((part) => part.text);
  return { status: chat.plain.status, error: chat.plain.error, answer, texts };
}

let world: ScriptedTestServer;
let steps: ScriptedStep[] = [];

before(async () => {
  world = await startScriptedTestServer({ handler: () => steps, toolFactories: () => lookupToolFactories() });
});
after(() => world.close());

test('a model stream dropped mid-answer: useChat shows the error, the partial answer stays, the history keeps it', async () => {
  steps = [
    { type: 'text', text: 'Refunds take ' },
    { type: 'text', text: 'fourteen ' },
    { type: 'delay', ms: 50 },
    { type: 'drop' },
  ];
  const chatId = await world.newChat();
  const chat = new TestChat({ id: chatId, api: `${world.http.url}${UI_CHAT_PATH}` });
  const { status, error, texts } = await ask(chat, 'How long do refunds take?');
  assert.equal(status, 'error');
  assert.match(
    error?.message ?? '',
    /^the model stream broke: the connection closed before the answer ended/,
  );
  assert.deepEqual(texts, ['Refunds take fourteen ']);

  const turn = await world.storage.chats.getTurn({ chatId, turn: 0 });
  assert.equal(turn?.status, 'failed');
  const history = (await world.storage.chats.listMessages(chatId)).map((stored) => stored.message);
  assert.deepEqual(
    history.map((message) => [message.role, message.content]),
    [
      ['user', 'How long do refunds take?'],
      ['assistant', 'Refunds take fourteen'],
    ],
  );
  // The chat works on: the next turn answers, with the kept partial in the model's request.
  steps = [{ type: 'text', text: 'Fourteen days.' }];
  const next = await ask(chat, 'Again?');
  assert.equal(next.status, 'ready');
  assert.deepEqual(next.texts, ['Fourteen days.']);
  assert.ok(
    world.model.requests.at(-1)?.messages.some((message) => message.text === 'Refunds take fourteen'),
  );
});

test('an error the turn goes on after is a data part: useChat reads on to the answer and ends ready', async () => {
  const top = (turn: number): Placement => ({ turn, tab: 0 });
  const packets: [Placement, Packet['obj']][] = [
    [top(0), { type: 'message-start' }],
    [top(0), { type: 'message-delta', content: 'First part. ' }],
    [top(1), { type: 'error', code: 'memory_unavailable', message: 'Saved memories could not be read.' }],
    [top(1), { type: 'message-start' }],
    [top(1), { type: 'message-delta', content: 'The answer.' }],
    [top(2), { type: 'stop', reason: 'finished' }],
  ];
  const site = await serveChunks(packets);
  try {
    const chat = new TestChat({ id: 'c1', api: site.url });
    const { status, error, answer, texts } = await ask(chat, 'Go on');
    assert.equal(error, undefined);
    assert.equal(status, 'ready');
    assert.deepEqual(texts, ['First part. ', 'The answer.']);
    const part = answer.parts.find((candidate) => candidate.type === 'data-toolbus-error') as
      | { data: { code: string; message: string } }
      | undefined;
    assert.deepEqual(part?.data, {
      code: 'memory_unavailable',
      message: 'Saved memories could not be read.',
    });
  } finally {
    await site.close();
  }
});

test('a failed turn without an error packet of its own still puts useChat in its error state', async () => {
  const site = await serveChunks([
    [
      { turn: 0, tab: 0 },
      { type: 'message-delta', content: 'Half' },
    ],
    [
      { turn: 1, tab: 0 },
      { type: 'stop', reason: 'error' },
    ],
  ]);
  try {
    const { status, error, texts } = await ask(new TestChat({ id: 'c2', api: site.url }), 'Fail');
    assert.equal(status, 'error');
    assert.equal(error?.message, 'The turn failed without saying why.');
    assert.deepEqual(texts, ['Half']);
  } finally {
    await site.close();
  }
});

/** A loopback HTTP endpoint answering every POST with these packets as the server's UI message stream. */
async function serveChunks(packets: readonly [Placement, Packet['obj']][]) {
  const server: Server = createHttpServer(async (request, response) => {
    for await (const _chunk of request) {
      // The body (useChat's messages) is not needed.
    }
    const stream = uiMessageStreamResponse({
      open: () =>
        toUiMessageChunks(
          (async function* () {
            let sequence = 0;
            for (const [placement, obj] of packets) {
              sequence += 1;
              yield { sequence, packet: { placement, modelIndex: 0, obj } };
            }
          })(),
          'm1',
        ),
    });
    response.writeHead(stream.status, Object.fromEntries(stream.headers));
    Readable.fromWeb(stream.body as import('node:stream/web').ReadableStream).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
