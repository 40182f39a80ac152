// The Redis approval relay on a real redis-server, between two connections as two replicas would hold them: who
// may decide, which decision wins, what a close leaves, grants seen by the other, and a lost message recovered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import { ApprovalHub } from '@toolbus/server';
import type { PacketObject } from '@toolbus/spec';
import { Redis } from 'ioredis';
import { RedisApprovalRelay } from './redis-approval-relay.ts';
import { RedisKeys } from './redis-keys.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let server: TestRedisServer;
let waitingSide: Redis;
let decidingSide: Redis;
let waiting: RedisApprovalRelay;
let deciding: RedisApprovalRelay;
const keys = new RedisKeys('relay-test:');

before(async () => {
  server = await startRedisServer();
  waitingSide = new Redis(server.url);
  decidingSide = new Redis(server.url);
  waiting = new RedisApprovalRelay({ redis: waitingSide, keys, recheckIntervalMs: 100 });
  deciding = new RedisApprovalRelay({ redis: decidingSide, keys });
});
after(async () => {
  waiting.disconnect();
  deciding.disconnect();
  await waitingSide.quit();
  await decidingSide.quit();
  await server.stop();
});

describe('RedisApprovalRelay', () => {
  test("a decision on one connection reaches the other's listener; only the owner decides, and only once", async () => {
    const heard: [string, ApprovalDecision][] = [];
    const unsubscribe = await waiting.subscribe((id, decision) => heard.push([id, decision]));
    await waiting.open({ approvalId: 'a-1', userId: 'alice', ttlMs: 10_000 });
    assert.equal(await deciding.decide('bob', 'a-1', 'approved'), false, 'not the owner');
    assert.equal(await deciding.decide('alice', 'a-unknown', 'approved'), false, 'never opened');
    assert.equal(await deciding.decide('alice', 'a-1', 'rejected'), true);
    assert.equal(await deciding.decide('alice', 'a-1', 'approved'), false, 'the first decision stands');
    await waitFor(() => heard.length === 1);
    assert.deepEqual(heard, [['a-1', 'rejected']]);
    assert.equal(await deciding.decision('a-1'), 'rejected');
    assert.equal(await waiting.close('a-1'), 'rejected');
    assert.equal(await deciding.decision('a-1'), undefined, 'a closed approval is gone');
    await unsubscribe();
  });

  test('a close before any decision wins: a later decision finds nothing', async () => {
    await waiting.open({ approvalId: 'a-2', userId: 'alice', ttlMs: 10_000 });
    assert.equal(await waiting.close('a-2'), undefined);
    assert.equal(await deciding.decide('alice', 'a-2', 'approved'), false);
  });

  test('an approval its replica never closed lapses after its lifetime', async () => {
    await waiting.open({ approvalId: 'a-3', userId: 'alice', ttlMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await deciding.decide('alice', 'a-3', 'approved'), false);
  });

  test('session grants written on one connection are seen on the other, per chat and per grant', async () => {
    assert.equal(await deciding.granted('chat-1', ['app\u0000x\u0000app.create']), false);
    await waiting.grant('chat-1', ['app\u0000x\u0000app.create', 'app\u0000x\u0000app.update']);
    assert.equal(await deciding.granted('chat-1', ['app\u0000x\u0000app.create']), true);
    assert.equal(
      await deciding.granted('chat-1', ['app\u0000x\u0000app.create', 'app\u0000x\u0000app.delete']),
      false,
      'every grant is needed',
    );
    assert.equal(await deciding.granted('chat-2', ['app\u0000x\u0000app.create']), false, 'another chat');
  });

  test('a hub on the relay settles a decision whose pub/sub message never arrived, by re-reading it', async () => {
    const hub = new ApprovalHub({ relay: waiting, timeoutMs: 10_000 });
    const packets: PacketObject[] = [];
    const turn = hub.forTurn({ chatId: 'chat-3', userId: 'alice' });
    turn.attach((packet) => packets.push(packet));
    const request: ApprovalRequest = {
      approvalId: 'a-4',
      sessionId: 'chat-3',
      identity: { sandboxId: 'sandbox-1', userId: 'alice' },
      target: { kind: 'app', id: 'app-1', name: 'Tracker' },
      actions: [{ type: 'app.create_item', policy: 'ASK', count: 1 }],
      method: 'POST',
      destination: 'https://api.test/items',
    };
    const answer = turn.broker.requestApproval(request, new AbortController().signal);
    await waitFor(() => packets.some((packet) => packet.type === 'approval-request'));
    // The decision written as the decide script would, without its message (a subscriber that was reconnecting).
    await decidingSide.hset(keys.approval('a-4'), 'decision', 'approved_for_session');
    assert.equal(await answer, 'approved_for_session');
    assert.deepEqual(packets.at(-1), {
      type: 'approval-resolved',
      approvalId: 'a-4',
      resolution: 'approved_for_session',
    });
    // The grant went to Redis: a hub of another replica (here: the other connection) sees it.
    const elsewhere = new ApprovalHub({ relay: deciding }).forTurn({ chatId: 'chat-3', userId: 'alice' });
    assert.equal(await elsewhere.broker.hasGrant({ ...request, approvalId: 'a-5' }), true);
    assert.equal(
      await elsewhere.broker.hasGrant({ ...request, identity: { sandboxId: 'sandbox-2', userId: 'bob' } }),
      false,
      "another user's sandbox never uses the chat's grant",
    );
    await hub.close();
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
