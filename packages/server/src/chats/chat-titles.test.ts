// A new chat is titled from its first exchange: the first message at once, then the model's short title after the
// first answer; a title someone chose stays.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chunkText, type ScriptedRequest, startScriptedModelServer } from '@toolbus/core/testing';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { cleanTitle, fallbackTitle, TITLE_INSTRUCTION } from './chat-titles.ts';

const isTitleRequest = (request: ScriptedRequest) =>
  request.messages.some((message) => message.role === 'system' && message.text.startsWith(TITLE_INSTRUCTION));

let http: ListeningServer;
let close: () => Promise<void>;
const titleRequests: string[] = [];

before(async () => {
  const model = await startScriptedModelServer({
    handler: (request) => {
      if (isTitleRequest(request)) {
        titleRequests.push(request.messages.at(-1)?.text ?? '');
        return [{ type: 'text', text: '"Refund Timing Policy".' }];
      }
      return chunkText('Refunds take fourteen days.', 5).map((text) => ({ type: 'text' as const, text }));
    },
  });
  const { storage } = await openTestStorage();
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    titleChats: true,
  });
  http = await listen(server, { port: 0 });
  close = async () => {
    await http.close();
    await storage.close();
    await model.close();
  };
});
after(async () => close?.());

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown> & { id: string; title: string };
}

async function titleOnceSettled(chatId: string, not: string): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const chat = await call('GET', `/v1/chats/${chatId}`);
    if (chat.title !== not) return chat.title;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the title stayed "${not}"`);
}

describe('chat titles', { timeout: 60_000 }, () => {
  test('the first answer brings a short title the model wrote (cleaned of quotes and period)', async () => {
    const chat = await call('POST', '/v1/chats', { title: 'New chat' });
    assert.equal(chat.title, 'New chat');
    await call('POST', `/v1/chats/${chat.id}/messages?stream=none`, {
      content: 'How long do refunds take at the shop?\nI returned a kettle.',
    });
    let title = await titleOnceSettled(chat.id, 'New chat');
    if (title === 'How long do refunds take at the shop?') title = await titleOnceSettled(chat.id, title);
    assert.equal(title, 'Refund Timing Policy');
    assert.equal(titleRequests.length, 1);
    assert.match(titleRequests[0] ?? '', /How long do refunds take[\s\S]*Refunds take fourteen days/);
    // The second answer does not title the chat again.
    await call('POST', `/v1/chats/${chat.id}/messages?stream=none`, { content: 'And exchanges?' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(titleRequests.length, 1);
    assert.equal((await call('GET', `/v1/chats/${chat.id}`)).title, 'Refund Timing Policy');
  });

  test('a chat created with its own title keeps it', async () => {
    const chat = await call('POST', '/v1/chats', { title: 'Kettle return' });
    await call('POST', `/v1/chats/${chat.id}/messages?stream=none`, { content: 'Refunds?' });
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal((await call('GET', `/v1/chats/${chat.id}`)).title, 'Kettle return');
  });

  test('the fallback is the first line of the first message, cut at a word', () => {
    assert.equal(fallbackTitle('  Hello there\nsecond line'), 'Hello there');
    const long = fallbackTitle(`${'word '.repeat(30)}end`);
    assert.ok(long.length <= 60 && long.endsWith('…'), long);
    assert.equal(fallbackTitle('\n  \n'), 'New chat');
    assert.equal(cleanTitle('Title: "Kettle refunds".\nextra'), 'Kettle refunds');
    assert.equal(cleanTitle('  \n'), undefined);
  });
});
