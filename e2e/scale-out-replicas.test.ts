// The scale-out proof: three `toolbus serve` replicas behind HAProxy, sharing Redis and PostgreSQL. Many chats
// stream turns with a tool call against the scripted model; one replica is killed with SIGKILL mid-turn; every
// client reconnects through HAProxy with Last-Event-ID and ends with every packet once, in order, and the history
// agrees with what was streamed. Turns the dead replica was running are closed by another replica (stop packet
// with reason `interrupted`, the reason in the history) and never run again, so no tool runs twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { WORKER_LOST_TURN_REASON } from '@toolbus/server';
import { openPostgresStorage } from '@toolbus/storage-postgres';
import { type ClusterBackends, okJson, startClusterBackends } from './__fixtures__/cluster-backends.ts';
import { followTurn, type WirePacket } from './__fixtures__/follow-turn.ts';
import {
  fetchThroughBalancer,
  type ReplicaCluster,
  startReplicaCluster,
} from './__fixtures__/replica-cluster.ts';
import { SEARCH_NARRATION, searchThenAnswer } from './__fixtures__/search-then-answer.ts';

/**
 * Concurrent chats in this test (TOOLBUS_SCALE_OUT_CHATS overrides): 200, as the scale-out proof asks; about a
 * minute alone on 2 cores (`npm run bench -- scale-out` reports the figure).
 */
const chatCount = Number(process.env.TOOLBUS_SCALE_OUT_CHATS ?? 200);
let backends: ClusterBackends;
let model: ScriptedModelServer;
let cluster: ReplicaCluster;
/** How long PostgreSQL, Redis, the sandbox service, the replicas and HAProxy took to start (for the summary). */
let setupSeconds = '';

/**
 * The answers wait here until the test opens the gate: every turn has run its tool and waits for its answer, so
 * the kill lands mid-turn on a loaded machine as on an idle one, whatever the timing.
 */
let openAnswers: () => void = () => {};
const answersOpen = new Promise<void>((resolve) => {
  openAnswers = resolve;
});
/** Answer requests (the second model call of a turn) that reached the model server. */
let answersAsked = 0;

/** Resolves once `condition` holds (checked every 20 ms), or fails naming `what` after `timeoutMs`. */
async function until(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `work` over `items`, `limit` at a time, results in order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await work(items[index] as T, index);
      }
    }),
  );
  return results;
}

before(async () => {
  const t = performance.now();
  backends = await startClusterBackends();
  // Each answer streams in 20 parts, 150 ms apart (about 3 s a turn), once the gate is open.
  model = await startScriptedModelServer({
    handler: searchThenAnswer({
      parts: 20,
      delayMs: 150,
      beforeAnswer: async () => {
        answersAsked += 1;
        await answersOpen;
      },
    }),
  });
  cluster = await startReplicaCluster({
    redisUrl: backends.redis.url,
    model: `openai-compatible:${model.url}/v1#scripted`,
    // One PostgreSQL database for every replica; secrets sealed with one key they all share.
    environment: backends.environment,
    turnLockMs: 5_000,
  });
  setupSeconds = ((performance.now() - t) / 1000).toFixed(1);
});
after(async () => {
  // A failed wait leaves answers at the gate: let them go so the model server can close.
  openAnswers();
  await cluster?.stop();
  await model?.close();
  await backends?.stop();
});

test(`${chatCount} streaming chats survive kill -9 of one of three replicas behind HAProxy`, {
  timeout: 300_000,
}, async () => {
  const base = cluster.url;
  const began = performance.now();
  const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);
  const chatIds = await Promise.all(
    Array.from({ length: chatCount }, async () => {
      const chat = await okJson<{ id: string }>(
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
        if (packet.obj.type === 'message-delta' && packet.obj.content !== SEARCH_NARRATION)
          started.add(chatId);
      },
    });
    return following.finally(() => servedBy.delete(chatId));
  });

  // Every turn runs its tool, then waits for its answer at the gate. Once half the turns wait there, and the
  // victim runs some of them and streams to some clients, the answers flow; the kill comes while they stream.
  const victim = cluster.replicas[1];
  assert.ok(victim);
  const runningOnVictim = () =>
    (victim.log().match(/"event":"turn\.start"/g) ?? []).length -
    (victim.log().match(/"event":"turn\.end"/g) ?? []).length;
  const streamingFromVictim = () => [...servedBy.values()].filter((name) => name === victim.name).length;
  await until(
    'half the turns wait for their answer, some on the victim, some streamed by it',
    () => answersAsked >= chatCount / 2 && runningOnVictim() > 0 && streamingFromVictim() > 0,
    150_000,
  );
  openAnswers();
  await until('answers stream', () => started.size >= Math.min(chatCount / 2, 15), 60_000);
  assert.ok(runningOnVictim() > 0, 'the victim runs turns when it is killed');
  assert.ok(streamingFromVictim() > 0, 'the victim streams to clients when it is killed');
  const toKill = seconds(began);
  victim.child.kill('SIGKILL');
  await victim.exited;
  const killedAt = performance.now();

  const results = await Promise.all(followed);
  const toEnd = seconds(killedAt);
  const checkedFrom = performance.now();
  const interruptedChats = new Set<number>();
  let interrupted = 0;
  let completed = 0;
  let reconnected = 0;
  // A fresh replay from storage (through any replica) and the history, for every chat, a few at a time.
  const readBack = await mapLimit(chatIds, 16, async (chatId) => ({
    replay: await followTurn({ baseUrl: base, chatId, turn: 0 }),
    detail: await okJson<{
      turns: { index: number; status: string; endReason: string | null }[];
      messages: { message: { role: string; content: string } }[];
    }>(await fetchThroughBalancer(`${base}/v1/chats/${chatId}`)),
  }));
  for (const [index, result] of results.entries()) {
    const { replay, detail } = readBack[index] as (typeof readBack)[number];
    const seen = result.packets.map((packet) => packet.sequence);
    assert.deepEqual(
      seen,
      Array.from({ length: seen.length }, (_, offset) => offset + 1),
      `chat ${index}: every packet once, in order`,
    );
    if (result.reconnects > 0) reconnected += 1;
    // What the client assembled is what storage replays.
    assert.deepEqual(replay.packets, result.packets, `chat ${index}: the stream matches storage`);
    const stop = result.packets.at(-1) as WirePacket;
    assert.equal(stop.obj.type, 'stop');
    const toolStarts = result.packets.filter((packet) => packet.obj.type === 'tool-start');
    assert.ok(toolStarts.length <= 1, `chat ${index}: the tool ran at most once`);
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
  const storage = await openPostgresStorage({
    url: backends.storageUrl,
    secretKey: backends.secretKey,
    environment: {},
  });
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
    `# ${chatCount} chats: ${completed} completed, ${interrupted} closed as interrupted, ${reconnected} clients reconnected` +
      ` (setup ${setupSeconds} s, kill after ${toKill} s, every client done ${toEnd} s later, checks ${seconds(checkedFrom)} s)\n`,
  );
});
