// A standalone egress proxy's approval asks through a real redis-server: the proxy's connection on one side, two
// replicas' hubs on the other (one runs the chat's turn, one does not). The card appears in the turn's stream only,
// the owner's decision (sent to either replica) comes back, a withdrawal expires the card, grants answer at once,
// another user's sandbox is refused, an ask nobody can show fails, and an ask published before the replica
// listened is still taken.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApprovalRequest } from '@toolbus/egress';
import { ApprovalHub, approvalBrokerOverAsks, ServerError, type TurnApprovals } from '@toolbus/server';
import type { PacketObject } from '@toolbus/spec';
import { Redis } from 'ioredis';
import { RedisApprovalAsks } from './redis-approval-asks.ts';
import { RedisApprovalRelay } from './redis-approval-relay.ts';
import { RedisKeys } from './redis-keys.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

interface Replica {
  readonly redis: Redis;
  readonly relay: RedisApprovalRelay;
  readonly asks: RedisApprovalAsks;
  readonly hub: ApprovalHub;
}

const keys = new RedisKeys('asks-test:');
let server: TestRedisServer;
let proxySide: Redis;
let proxyAsks: RedisApprovalAsks;
const replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const redis = new Redis(server.url);
  const relay = new RedisApprovalRelay({ redis, keys, recheckIntervalMs: 100 });
  const asks = new RedisApprovalAsks({ redis, keys, recheckIntervalMs: 100 });
  const hub = new ApprovalHub({ relay, asks, timeoutMs: 10_000 });
  await hub.listen();
  const replica = { redis, relay, asks, hub };
  replicas.push(replica);
  return replica;
}

before(async () => {
  server = await startRedisServer();
  proxySide = new Redis(server.url);
  proxyAsks = new RedisApprovalAsks({ redis: proxySide, keys, recheckIntervalMs: 100, claimTimeoutMs: 1000 });
});
after(async () => {
  for (const replica of replicas) {
    await replica.hub.close();
    replica.relay.disconnect();
    replica.asks.disconnect();
    await replica.redis.quit();
  }
  proxyAsks.disconnect();
  await proxySide.quit();
  await server.stop();
});

let counter = 0;
function askOf(chatId: string, userId: string): ApprovalRequest {
  counter += 1;
  return {
    approvalId: `approval-${counter}-${Date.now()}`,
    sessionId: chatId,
    identity: { sandboxId: `sandbox-${counter}`, userId, tag: 'call_py' },
    target: { kind: 'app', id: '7', name: 'Tracker' },
    actions: [{ type: 'app.create_item', policy: 'ASK', count: 1 }],
    method: 'POST',
    destination: 'https://api.test/items',
    payload: { title: 'Q3 report', password: 'hunter2' },
  };
}

/** A turn of `chatId` on `replica`, collecting its approval packets. */
function turnOn(replica: Replica, chatId: string, userId: string) {
  const packets: { packet: PacketObject; toolCallId: string | undefined }[] = [];
  const turn: TurnApprovals = replica.hub.forTurn({ chatId, userId });
  turn.attach((packet, toolCallId) => packets.push({ packet, toolCallId }));
  const next = async (type: string): Promise<Record<string, unknown>> => {
    for (let tries = 0; tries < 200; tries += 1) {
      const found = packets.find((entry) => entry.packet.type === type);
      if (found !== undefined) return { ...found.packet };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no ${type} packet`);
  };
  /** The proxy asks in the chat as its owner; once the card shows, the owner decides: the proxy's answer. */
  const askAndDecide = async (decision: Parameters<ApprovalHub['decide']>[2]) => {
    const request = askOf(chatId, userId);
    const answer = broker().requestApproval(request, new AbortController().signal);
    await next('approval-request');
    await replica.hub.decide(userId, request.approvalId, decision);
    return answer;
  };
  return { turn, packets, next, askAndDecide };
}

const broker = () => approvalBrokerOverAsks(proxyAsks);

describe('RedisApprovalAsks', () => {
  test('the card appears on the replica running the chat; the owner decides on the other; the proxy hears it', async () => {
    const [running, other] = [await startReplica(), await startReplica()];
    const { turn, packets, next } = turnOn(running, 'chat-a', 'alice');
    const request = askOf('chat-a', 'alice');
    const answer = broker().requestApproval(request, new AbortController().signal);
    const card = await next('approval-request');
    assert.equal(card.approvalId, request.approvalId);
    assert.match(String(card.payloadPreview), /\[hidden\]/, 'the preview masks the password');
    assert.equal(packets[0]?.toolCallId, 'call_py', 'at the tool call that runs the code');
    assert.equal(running.hub.pending, 1);
    assert.equal(other.hub.pending, 0, 'the replica without the turn shows nothing');
    await assert.rejects(other.hub.decide('bob', request.approvalId, 'approve'), ServerError);
    assert.equal(await other.hub.decide('alice', request.approvalId, 'approve'), 'approved');
    assert.equal(await answer, 'approved');
    assert.equal((await next('approval-resolved')).resolution, 'approved');
    turn.close();
  });

  test('a rejection comes back as rejected; the proxy giving up expires the card', async () => {
    const replica = await startReplica();
    const { turn, next, packets, askAndDecide } = turnOn(replica, 'chat-b', 'bob');
    assert.equal(await askAndDecide('reject'), 'rejected');
    packets.length = 0;
    const controller = new AbortController();
    const withdrawn = askOf('chat-b', 'bob');
    const waiting = broker().requestApproval(withdrawn, controller.signal);
    await next('approval-request');
    controller.abort();
    assert.equal(await waiting, 'rejected');
    assert.equal((await next('approval-resolved')).resolution, 'expired');
    assert.equal(replica.hub.pending, 0);
    await assert.rejects(replica.hub.decide('bob', withdrawn.approvalId, 'approve'), ServerError);
    turn.close();
  });

  test("allow for this chat answers the chat's next ask at once, without a card", async () => {
    const replica = await startReplica();
    const { turn, packets, askAndDecide } = turnOn(replica, 'chat-c', 'carol');
    assert.equal(await askAndDecide('allow-session'), 'approved_for_session');
    const cards = packets.length;
    assert.equal(
      await broker().requestApproval(askOf('chat-c', 'carol'), new AbortController().signal),
      'approved',
    );
    assert.equal(packets.length, cards, 'no second card');
    turn.close();
  });

  test("another user's sandbox cannot ask in the chat, and an ask for a chat no replica runs fails", async () => {
    const replica = await startReplica();
    const { turn, packets } = turnOn(replica, 'chat-d', 'dave');
    assert.equal(
      await broker().requestApproval(askOf('chat-d', 'mallory'), new AbortController().signal),
      'rejected',
    );
    assert.equal(packets.length, 0, 'no card for a foreign sandbox');
    await assert.rejects(
      broker().requestApproval(askOf('chat-nobody-runs', 'dave'), new AbortController().signal),
      (error: unknown) =>
        ServerError.isInstance(error) && /No turn of chat chat-nobody-runs/.test(error.message),
    );
    turn.close();
    // The turn ended: its chat takes no more asks.
    await assert.rejects(broker().requestApproval(askOf('chat-d', 'dave'), new AbortController().signal));
  });

  test('an ask published before any replica listened is taken once one does', async () => {
    const patient = new RedisApprovalAsks({
      redis: proxySide,
      keys,
      recheckIntervalMs: 100,
      claimTimeoutMs: 5000,
    });
    const request = askOf('chat-e', 'erin');
    const answer = approvalBrokerOverAsks(patient).requestApproval(request, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const replica = await startReplica();
    const { turn, next } = turnOn(replica, 'chat-e', 'erin');
    await next('approval-request');
    await replica.hub.decide('erin', request.approvalId, 'approve');
    assert.equal(await answer, 'approved');
    turn.close();
    patient.disconnect();
  });
});
