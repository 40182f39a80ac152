// The chaos run, sized for CI: three `toolbus serve` replicas behind HAProxy on PostgreSQL and Redis (all from
// Debian, started here). While several chats stream, one run kills a replica (SIGKILL), stops Redis for 5 s and
// restarts PostgreSQL. Every chat's packets are contiguous and unique, what was seen live is what a later read
// returns, each turn ends with one `stop`, no model request or tool call ran twice, and the next turn in each
// chat works.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { omitUndefined } from '@toolbus/spec';
import { type ClusterBackends, okJson, startClusterBackends } from './__fixtures__/cluster-backends.ts';
import { type FollowedTurn, followTurn, type WirePacket } from './__fixtures__/follow-turn.ts';
import {
  fetchThroughBalancer,
  type ReplicaCluster,
  startReplicaCluster,
} from './__fixtures__/replica-cluster.ts';
import { SEARCH_NARRATION, searchThenAnswer } from './__fixtures__/search-then-answer.ts';

const chatCount = 12;
/**
 * The replicas' hold on a turn: a dead replica's turns are taken over within this plus a third of it (the
 * stalled check). Longer than the Redis outage, so the live replicas keep their turns through it.
 */
const turnLockMs = 10_000;
let backends: ClusterBackends;
let model: ScriptedModelServer;
let cluster: ReplicaCluster;

before(async () => {
  backends = await startClusterBackends();
  // Each answer streams in 40 parts, 250 ms apart (about 10 s, across the faults).
  model = await startScriptedModelServer({ handler: searchThenAnswer({ parts: 40, delayMs: 250 }) });
  cluster = await startReplicaCluster({
    redisUrl: backends.redis.url,
    model: `openai-compatible:${model.url}/v1#scripted`,
    environment: backends.environment,
    turnLockMs,
  });
});
after(async () => {
  await cluster?.stop();
  await model?.close();
  await backends?.stop();
});

/** Sends a message through HAProxy and follows its turn to the `stop`, reconnecting whenever a stream breaks. */
async function ask(chatId: string, turn: number, content: string, onPacket?: (packet: WirePacket) => void) {
  for (let attempt = 0; ; attempt += 1) {
    const first = await fetchThroughBalancer(`${cluster.url}/v1/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ content }),
    });
    if (first.status === 200) {
      return followTurn({ baseUrl: cluster.url, chatId, turn, first, ...omitUndefined({ onPacket }) });
    }
    assert.ok(attempt < 20, `send: ${first.status} ${await first.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every packet once, in order, ending with the turn's one `stop`; the same as a later read from the start. */
async function assertTurn(
  chatId: string,
  turn: number,
  live: FollowedTurn,
  label: string,
): Promise<WirePacket> {
  const sequences = live.packets.map((packet) => packet.sequence);
  assert.deepEqual(
    sequences,
    sequences.map((_sequence, index) => index + 1),
    `${label}: contiguous and unique`,
  );
  const stops = live.packets.filter((packet) => packet.obj.type === 'stop');
  assert.equal(stops.length, 1, `${label}: one stop`);
  assert.equal(live.packets.at(-1)?.obj.type, 'stop', `${label}: the stop is last`);
  const later = await followTurn({ baseUrl: cluster.url, chatId, turn });
  assert.deepEqual(later.packets, live.packets, `${label}: what was seen live is what a later read returns`);
  assert.ok(
    live.packets.filter((packet) => packet.obj.type === 'tool-start').length <= 1,
    `${label}: the tool ran at most once`,
  );
  return stops[0] as WirePacket;
}

test('a replica killed, Redis stopped for 5 s and PostgreSQL restarted while chats stream: nothing lost, nothing twice', {
  timeout: 240_000,
}, async () => {
  const chatIds = await Promise.all(
    Array.from({ length: chatCount }, async () => {
      const chat = await okJson<{ id: string }>(
        await fetchThroughBalancer(`${cluster.url}/v1/chats`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      );
      return chat.id;
    }),
  );
  const answering = new Set<string>();
  const turns = chatIds.map((chatId, index) =>
    ask(chatId, 0, `question ${index}`, (packet) => {
      if (packet.obj.type === 'message-delta' && packet.obj.content !== SEARCH_NARRATION)
        answering.add(chatId);
    }),
  );
  const deadline = Date.now() + 60_000;
  while (answering.size < chatCount && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(answering.size, chatCount, 'every chat streams its answer before the faults');

  const victim = cluster.replicas[1];
  assert.ok(victim);
  const began = performance.now();
  const at = () => `${((performance.now() - began) / 1000).toFixed(1)} s`;
  victim.child.kill('SIGKILL');
  await victim.exited;
  await backends.redis.restart({ downMs: 5_000, keepData: true });
  const redisBack = at();
  await backends.postgres.restart({ downMs: 2_000 });
  const postgresBack = at();

  const followed = await Promise.all(turns).catch(async (error: unknown) => {
    // What the replicas said about the turns that did not end, for the failure message.
    const lines = cluster.replicas
      .flatMap((replica) =>
        replica
          .log()
          .split('\n')
          .map((line) => `${replica.name} ${line}`),
      )
      .filter((line) => !/"event":"(turn\.start|turn\.end|http\.)/.test(line))
      .slice(-60);
    throw new Error(`${error instanceof Error ? error.message : error}\n${lines.join('\n')}`);
  });
  const allEnded = at();
  let interrupted = 0;
  for (const [index, chatId] of chatIds.entries()) {
    const stop = await assertTurn(chatId, 0, followed[index] as FollowedTurn, `chat ${index} turn 0`);
    if (stop.obj.reason === 'interrupted') interrupted += 1;
    else assert.equal(stop.obj.reason, 'finished', `chat ${index}: ${JSON.stringify(stop.obj)}`);
  }
  assert.ok(interrupted > 0 || followed.some((turn) => turn.reconnects > 0), 'the kill hit running turns');

  // No model request ran twice: each question's first step and its answer step were asked at most once.
  for (let index = 0; index < chatCount; index += 1) {
    const asked = model.requests.filter((request) =>
      request.messages.some((message) => message.role === 'user' && message.text === `question ${index}`),
    );
    const firstSteps = asked.filter((request) => request.lastMessage?.role === 'user').length;
    const answerSteps = asked.filter((request) => request.lastMessage?.role === 'tool').length;
    assert.ok(
      firstSteps <= 1 && answerSteps <= 1,
      `question ${index}: ${firstSteps} first, ${answerSteps} answer`,
    );
  }

  // The next turn in each chat works, on the two replicas left.
  const next = await Promise.all(chatIds.map((chatId, index) => ask(chatId, 1, `follow-up ${index}`)));
  for (const [index, chatId] of chatIds.entries()) {
    const stop = await assertTurn(chatId, 1, next[index] as FollowedTurn, `chat ${index} turn 1`);
    assert.equal(stop.obj.reason, 'finished');
  }
  process.stdout.write(
    `# chaos: ${chatCount} chats, ${interrupted} turns closed as interrupted, ` +
      `${followed.filter((turn) => turn.reconnects > 0).length} clients reconnected; after the kill: Redis back ` +
      `${redisBack}, PostgreSQL back ${postgresBack}, every turn ended ${allEnded}, next turns done ${at()}\n`,
  );
});
