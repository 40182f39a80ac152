// A turn's end commits on PostgreSQL, but the connection drops before its reply reaches the pool (a proxy on
// loopback loses it): the closer sees a failure and tries again. With its end token, the try gets the turn as its
// own end left it, nothing stored twice; another closer still gets `conflict`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Storage, StorageError } from '@toolbus/storage';
import { isStorageErrorCode as isCode } from '@toolbus/storage/testing';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { type CommitReplyLossProxy, startCommitReplyLossProxy } from './testing/commit-reply-loss-proxy.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
let proxy: CommitReplyLossProxy;
let direct: Storage;
let throughProxy: Storage;

before(async () => {
  cluster = await startTestPostgres();
  const url = await cluster.createDatabase();
  const secretKey = randomBytes(32).toString('base64');
  direct = await openPostgresStorage({ url, secretKey, environment: {} });
  proxy = await startCommitReplyLossProxy(url);
  throughProxy = await openPostgresStorage({ url: proxy.url, secretKey, environment: {} });
});
after(async () => {
  await throughProxy.close();
  await direct.close();
  await proxy.close();
  await cluster.stop();
});

test("a turn's end whose COMMIT reply was lost, tried again with its token, is that closer's end, stored once", async () => {
  const user = await direct.users.create({ email: 'ada@example.com' });
  const chat = await direct.chats.create({ userId: user.id });
  await direct.chats.startTurn({ chatId: chat.id, input: [{ role: 'user', content: 'Refunds?' }] });
  await direct.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ delta: 'Refunds' }] });
  const end = {
    chatId: chat.id,
    turn: 0,
    status: 'interrupted' as const,
    reason: 'the worker was lost',
    messages: [{ role: 'assistant' as const, content: 'Refunds [interrupted]' }],
    packets: [{ stop: 'interrupted' }],
    endToken: 'this-closer',
  };
  const lost = proxy.loseCommitReply('UPDATE chat_turns SET status');
  const failure = await throughProxy.chats.finishTurn(end).then(
    () => undefined,
    (error: unknown) => error,
  );
  await lost;
  assert.ok(failure !== undefined, 'the closer saw its end fail');
  assert.ok(!(failure instanceof StorageError), `a lost connection, not a refusal: ${String(failure)}`);
  // PostgreSQL has the end the closer did not hear of.
  const stored = await direct.chats.getTurn({ chatId: chat.id, turn: 0 });
  assert.equal(stored?.status, 'interrupted');

  const again = await throughProxy.chats.finishTurn(end);
  assert.deepEqual(again, stored, 'the try again gets the turn as its first try ended it');
  await assert.rejects(
    throughProxy.chats.finishTurn({ ...end, endToken: 'another-closer' }),
    isCode('conflict'),
  );
  assert.deepEqual(await direct.chats.listPackets({ chatId: chat.id, turn: 0 }), [
    { sequence: 1, packet: { delta: 'Refunds' } },
    { sequence: 2, packet: { stop: 'interrupted' } },
  ]);
  assert.deepEqual(
    (await direct.chats.listMessages(chat.id)).map((message) => message.message.content),
    ['Refunds [interrupted]'],
  );
});
