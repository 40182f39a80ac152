// The scale-out proof: three `toolbus serve` replicas behind HAProxy, sharing Redis and PostgreSQL. Many chats
// stream turns with a tool call against the scripted model; one replica is killed with SIGKILL mid-turn; every
// client reconnects through HAProxy with Last-Event-ID and ends with every packet once, in order, and the history
// agrees with what was streamed. Turns the dead replica was running are closed by another replica (stop packet
// with reason `interrupted`, the reason in the history) and never run again, so no tool runs twice.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, type ScriptedStep, startScriptedModelServer } from '@toolbus/core/testing';
import { startRedisServer, type TestRedisServer } from '@toolbus/redis/testing';
import { WORKER_LOST_TURN_REASON } from '@toolbus/server';
import { openPostgresStorage } from '@toolbus/storage-postgres';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';
import { followTurn, type WirePacket } from './__fixtures__/follow-turn.ts';
import {
  fetchThroughBalancer,
  type ReplicaCluster,
  startReplicaCluster,
} from './__fixtures__/replica-cluster.ts';

/**
 * Concurrent chats in this test: 30 keeps it near a minute on a busy 2-core machine; `npm run bench -- scale-out`
 * runs the same kill with 200 (TOOLBUS_SCALE_OUT_CHATS=200 runs it here).
 */
const chatCount = Number(process.env.TOOLBUS_SCALE_OUT_CHATS ?? 30);
let postgres: TestPostgres;
let storageUrl: string;
const secretKey = randomBytes(32).toString('base64');
let redis: TestRedisServer;
let model: ScriptedModelServer;
let cluster: ReplicaCluster;

/** Asked first: narrate and search; shown the result: answer in 20 chunks, 150 ms apart (about 3 s a turn). */
function searchThenAnswer(request: {
  messages: readonly { role: string; text: string }[];
  toolNames: readonly string[];
}): ScriptedStep[] {
  const last = request.messages.at(-1);
  if (last?.role === 'user') {
    assert.ok(
      request.toolNames.includes('internal_search'),
      `tools offered: ${request.toolNames.join(', ')}`,
    );
    return [
      { type: 'text', text: 'Let me search. ' },
      { type: 'tool-call', id: 'call_1', name: 'internal_search', arguments: { queries: [last.text] } },
    ];
  }
  const steps: ScriptedStep[] = [];
  for (let index = 0; index < 20; index += 1) {
    steps.push({ type: 'delay', ms: 150 }, { type: 'text', text: `part ${index}. ` });
  }
  return steps;
}

before(async () => {
  [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  model = await startScriptedModelServer({ handler: searchThenAnswer });
  storageUrl = await postgres.createDatabase();
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    model: `openai-compatible:${model.url}/v1#scripted`,
    // One PostgreSQL database for every replica; secrets sealed with one key they all share.
    environment: {
      TOOLBUS_STORAGE_URL: storageUrl,
      TOOLBUS_SECRET_KEY: secretKey,
    },
    turnLockMs: 5_000,
  });
});
after(async () => {
  await cluster?.stop();
  await model?.close();
  await redis?.stop();
  await postgres?.stop();
});

async function json<T>(response: Response): Promise<T> {
  assert.ok(response.ok, `${response.status} ${await response.clone().text()}`);
  return (await response.json()) as T;
}

test(`${chatCount} streaming chats survive kill -9 of one of three replicas behind HAProxy`, {
  timeout: 180_000,
}, async () => {
  const base = cluster.url;
  const chatIds = await Promise.all(
    Array.from({ length: chatCount }, async () => {
      const chat = await json<{ id: string }>(
        await fetchThroughBalancer(`${base}/v1/chats`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      );
      return chat.id;
    }),
  );
  const started = new Set<string>();
  /** The replica each unfinished client is streaming from now. */
  const servedBy = new Map<string, string>();
  const followed = chatIds.map(async (chatId, index) => {
    const first = await fetchThroughBalancer(`${base}/v1/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ content: `question ${index}` }),
    });
    if (first.status !== 200) assert.fail(`send: ${first.status} ${await first.text()}`);
    const following = followTurn({
      baseUrl: base,
      chatId,
      turn: 0,
      first,
      onResponse: (response) => servedBy.set(chatId, response.headers.get('x-replica') ?? ''),
      onPacket: (packet) => {
        // The answer is streaming (the tool ran): this turn is mid-flight.
        if (packet.obj.type === 'message-delta' && packet.obj.content !== 'Let me search. ')
          started.add(chatId);
      },
    });
    return following.finally(() => servedBy.delete(chatId));
  });

  // Many turns are streaming their slow answer (half, or 15 on a large run whose turns start over a longer time),
  // and the victim runs some of them and streams to some clients (mid-flight): kill it.
  const victim = cluster.replicas[1];
  assert.ok(victim);
  const runningOnVictim = () =>
    (victim.log().match(/"event":"turn\.start"/g) ?? []).length -
    (victim.log().match(/"event":"turn\.end"/g) ?? []).length;
  const streamingFromVictim = () => [...servedBy.values()].filter((name) => name === victim.name).length;
  const deadline = Date.now() + 120_000;
  while (
    (started.size < Math.min(chatCount / 2, 15) || runningOnVictim() === 0 || streamingFromVictim() === 0) &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.ok(runningOnVictim() > 0, 'the victim runs turns when it is killed');
  assert.ok(streamingFromVictim() > 0, 'the victim streams to clients when it is killed');
  victim.child.kill('SIGKILL');
  await victim.exited;

  const results = await Promise.all(followed);
  const interruptedChats = new Set<number>();
  let interrupted = 0;
  let completed = 0;
  let reconnected = 0;
  for (const [index, result] of results.entries()) {
    const chatId = chatIds[index] as string;
    const seen = result.packets.map((packet) => packet.sequence);
    assert.deepEqual(
      seen,
      Array.from({ length: seen.length }, (_, offset) => offset + 1),
      `chat ${index}: every packet once, in order`,
    );
    if (result.reconnects > 0) reconnected += 1;
    // A fresh replay from storage (through any replica) is what the client assembled.
    const replay = await followTurn({ baseUrl: base, chatId, turn: 0 });
    assert.deepEqual(replay.packets, result.packets, `chat ${index}: the stream matches storage`);
    const stop = result.packets.at(-1) as WirePacket;
    assert.equal(stop.obj.type, 'stop');
    const toolStarts = result.packets.filter((packet) => packet.obj.type === 'tool-start');
    assert.ok(toolStarts.length <= 1, `chat ${index}: the tool ran at most once`);
    const detail = await json<{
      turns: { index: number; status: string; endReason: string | null }[];
      messages: { message: { role: string; content: string } }[];
    }>(await fetchThroughBalancer(`${base}/v1/chats/${chatId}`));
    const turn = detail.turns[0];
    assert.ok(turn);
    const roles = detail.messages.map((message) => message.message.role);
    if (stop.obj.reason === 'interrupted') {
      interrupted += 1;
      interruptedChats.add(index);
      assert.equal(turn.status, 'interrupted');
      assert.equal(turn.endReason, WORKER_LOST_TURN_REASON);
      assert.equal(roles.at(0), 'user');
      assert.match(
        detail.messages.at(-1)?.message.content ?? '',
        /This answer was interrupted: The server replica/,
      );
      // Every tool section the dead replica opened is closed in the stream (by its result or by the closer).
      const open = new Set<string>();
      for (const packet of result.packets) {
        if (packet.obj.type === 'tool-start') open.add(JSON.stringify(packet.placement));
        if (packet.obj.type === 'section-end') open.delete(JSON.stringify(packet.placement));
      }
      assert.equal(open.size, 0, `chat ${index}: no tool section left open`);
    } else {
      completed += 1;
      assert.equal(turn.status, 'completed', `chat ${index}: ${JSON.stringify(turn)}`);
      assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant']);
      const answer = result.packets
        .filter((packet) => packet.obj.type === 'message-delta' && !packet.placement.path?.length)
        .map((packet) => packet.obj.content)
        .join('');
      assert.match(answer, /part 19\./);
    }
  }
  // No turn was run twice: each question reached the model's first step once, or, for a turn killed before its
  // first model call, never.
  for (let index = 0; index < chatCount; index += 1) {
    const firstSteps = model.requests.filter(
      (request) => request.lastMessage?.role === 'user' && request.lastMessage.text === `question ${index}`,
    ).length;
    if (interruptedChats.has(index)) assert.ok(firstSteps <= 1, `question ${index} started at most once`);
    else assert.equal(firstSteps, 1, `question ${index} started once`);
  }
  // The record is PostgreSQL's: every turn's end is there, as the replicas reported it.
  const storage = await openPostgresStorage({ url: storageUrl, secretKey, environment: {} });
  try {
    for (const [index, chatId] of chatIds.entries()) {
      const record = await storage.chats.getTurn({ chatId, turn: 0 });
      assert.equal(record?.status, interruptedChats.has(index) ? 'interrupted' : 'completed');
    }
  } finally {
    await storage.close();
  }
  assert.ok(interrupted > 0, 'the killed replica was running turns');
  assert.ok(completed > 0, 'the other replicas finished theirs');
  assert.ok(reconnected > 0, 'clients of the killed replica reconnected');
  process.stdout.write(
    `# ${chatCount} chats: ${completed} completed, ${interrupted} closed as interrupted, ${reconnected} clients reconnected\n`,
  );
});
