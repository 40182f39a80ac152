// Durable Deep Research: two `toolbus serve` worker replicas behind HAProxy on one Redis and one PostgreSQL. A
// research turn runs as a queued job on one of them; it is killed with SIGKILL while its second orchestrator cycle
// runs. The other replica takes the job over and resumes from the last checkpoint: the first cycle is kept, the
// cycle in progress runs again (said in a reasoning note), and the client, reconnecting with Last-Event-ID, ends
// with one complete, duplicate-free packet stream and one report.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkPacketStream } from '@toolbus/research';
import { type ResearchWorld, startResearchWorld } from '@toolbus/research/testing';
import type { Packet } from '@toolbus/spec';
import { type ClusterBackends, okJson, startClusterBackends } from './__fixtures__/cluster-backends.ts';
import { followTurn, type WirePacket } from './__fixtures__/follow-turn.ts';
import {
  fetchThroughBalancer,
  type Replica,
  type ReplicaCluster,
  startReplicaCluster,
} from './__fixtures__/replica-cluster.ts';

const solar = 'Research solar panels';
// Each step of this agent waits (ResearchWorld.slowStepMs) until the kill: its cycle is the one in progress.
const wind = 'Research wind turbines slowly';
let backends: ClusterBackends;
let world: ResearchWorld;
let cluster: ReplicaCluster;

before(async () => {
  [backends, world] = await Promise.all([startClusterBackends(), startResearchWorld({ delayMs: 20 })]);
  // One agent per orchestrator cycle: solar in the first, wind in the second, then the report.
  world.script = { tasks: [solar, wind], sequential: true };
  // Four steps of 3 s each: the wind agent cannot finish before the client sees it start, however slow the
  // machine; after the kill its steps answer at once.
  world.slowStepMs = 3_000;
  cluster = await startReplicaCluster({
    redisUrl: backends.redis.url,
    model: `openai-compatible:${world.server.url}/v1#scripted`,
    replicas: 2,
    // Merged into the shared config file: the default persona's web_search goes to the research world's
    // SearXNG-compatible backend, open_url may reach loopback.
    storageConfig: {
      allowHosts: ['127.0.0.1'],
      webSearch: { provider: 'searxng', baseUrl: world.backend.origin },
    },
    // One PostgreSQL database for both replicas (secrets sealed with one shared key), as in a deployment.
    environment: { TOOLBUS_CONTEXT_WINDOW: '128000', ...backends.environment },
    turnLockMs: 3_000,
  });
});
after(async () => {
  await cluster?.stop();
  await world?.close();
  await backends?.stop();
});

/** Waits (bounded) for a condition: a replica's log reaches this process through a pipe, possibly late. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(condition(), what);
}

const agentRequests = (task: string) =>
  world.server.requests.filter(
    (request) =>
      request.messages.some(
        (message) => message.role === 'system' && message.text.includes('research agent:'),
      ) && request.messages.some((message) => message.role === 'user' && message.text === task),
  ).length;

test('a Deep Research run whose worker is killed finishes on the other replica with one report', {
  timeout: 120_000,
}, async () => {
  const base = cluster.url;
  const chat = await okJson<{ id: string }>(
    await fetchThroughBalancer(`${base}/v1/chats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }),
  );
  const sent = await fetchThroughBalancer(`${base}/v1/chats/${chat.id}/messages?stream=none`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'How do renewables compare?', research: true }),
  });
  assert.equal(sent.status, 202, await sent.clone().text());

  /** A replica logs `turn.start` with the chat's id when it runs the turn. */
  const ranIt = (replica: Replica) =>
    replica
      .log()
      .split('\n')
      .some((line) => line.includes('"event":"turn.start"') && line.includes(chat.id));
  const state: { killing?: Promise<Replica>; solarRequestsAtKill?: number } = {};
  /** The worker is the one replica running a turn (each replica's own /health counts its running turns). */
  const kill = async (): Promise<Replica> => {
    const running = await Promise.all(
      cluster.replicas.map(async (replica) => {
        const health = await fetch(`http://127.0.0.1:${replica.port}/health`);
        return ((await health.json()) as { runningTurns: number }).runningTurns;
      }),
    );
    const workers = cluster.replicas.filter((_, index) => (running[index] ?? 0) > 0);
    assert.equal(workers.length, 1, `one replica runs the turn: ${running.join(', ')}`);
    const worker = workers[0] as Replica;
    state.solarRequestsAtKill = agentRequests(solar);
    worker.child.kill('SIGKILL');
    world.slowStepMs = 0;
    return worker;
  };
  const followed = await followTurn({
    baseUrl: base,
    chatId: chat.id,
    turn: 0,
    onPacket: (packet) => {
      if (state.killing || packet.obj.type !== 'research-agent-start' || packet.obj.task !== wind) return;
      // The second cycle's agent started: the first cycle is checkpointed (saved before the next one starts),
      // and the worker dies mid-cycle.
      state.killing = kill();
      // Awaited below; a failure there fails the test.
      state.killing.catch(() => undefined);
    },
  });
  assert.ok(state.killing, 'the worker was killed mid-run');
  const killed = await state.killing;
  await until(() => ranIt(killed), 'the killed replica logged that it ran the turn');
  assert.equal(await killed.exited, null, 'killed by the signal');

  // Every packet once, in order; a replay from storage through the surviving replica is the same stream.
  const packets = followed.packets;
  const sequences = packets.map((packet) => packet.sequence);
  assert.deepEqual(
    sequences,
    sequences.map((_, index) => index + 1),
  );
  const replay = await followTurn({ baseUrl: base, chatId: chat.id, turn: 0 });
  assert.deepEqual(replay.packets, packets, 'what the client assembled is what storage holds');
  assert.deepEqual(checkPacketStream(packets as unknown as Packet[]), [], 'one valid packet stream');

  // The other replica resumed it: the first cycle kept, the one in progress run again, and said so.
  const survivor = cluster.replicas.find((replica) => replica !== killed);
  assert.ok(survivor);
  await until(() => ranIt(survivor), 'the surviving replica logged that it ran the turn');
  const ofType = (type: string) => packets.filter((packet: WirePacket) => packet.obj.type === type);
  assert.deepEqual(
    ofType('research-agent-start').map((packet) => packet.obj.task),
    [solar, wind, wind],
  );
  assert.equal(agentRequests(solar), state.solarRequestsAtKill, 'the completed cycle was not run again');
  assert.equal(ofType('research-plan-start').length, 1, 'the plan was not written again');
  const note = ofType('reasoning-delta')
    .filter((packet) => !packet.placement.path?.length)
    .map((packet) => String(packet.obj.reasoning))
    .find((text) => text.includes('another one resumed it'));
  assert.match(note ?? '', /1 completed research cycle are kept; the cycle that was in progress runs again/);
  const interruptedAgent = ofType('error').find(
    (packet) => packet.obj.code === 'turn_interrupted' && !packet.placement.path?.length,
  );
  assert.ok(interruptedAgent, 'the dead cycle’s agent was closed with an error');

  // One report, and the turn ends once, finished.
  const reports = ofType('message-start').filter((packet) => !packet.placement.path?.length);
  assert.equal(reports.length, 1);
  assert.equal(ofType('stop').length, 1);
  assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'finished' });
  const report = ofType('message-delta')
    .filter((packet) => !packet.placement.path?.length)
    .map((packet) => String(packet.obj.content))
    .join('');
  assert.match(report, /solar panels history was measured carefully/);
  assert.match(report, /wind turbines slowly history was measured carefully/);
  const detail = await okJson<{
    turns: { kind: string; status: string }[];
    messages: { message: { role: string; content: string } }[];
  }>(await fetchThroughBalancer(`${base}/v1/chats/${chat.id}`));
  assert.deepEqual(
    detail.turns.map((turn) => [turn.kind, turn.status]),
    [['research', 'completed']],
  );
  assert.deepEqual(
    detail.messages.map((stored) => [stored.message.role, stored.message.content]),
    [
      ['user', 'How do renewables compare?'],
      ['assistant', report],
    ],
  );
});
