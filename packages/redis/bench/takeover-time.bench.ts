// `npm run bench -- takeover`: how long after a `kill -9` of a replica its chat turns are closed, with `toolbus
// serve`'s default takeover settings (--turn-lock-ms 30000, --stalled-check-ms 15000): three replicas behind HAProxy
// on one Redis and the shared SQLite file, several chats streaming long answers through the balancer; one replica
// is killed and each client, reconnecting through the balancer, notes when its turn's `stop` arrives. Each round
// is a fresh cluster. Prints every interrupted turn's time from the kill to its `stop`, and the range.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { type ScriptedStep, startScriptedModelServer } from '@toolbus/core/testing';
import { followTurn, type WirePacket } from '../../../e2e/__fixtures__/follow-turn.ts';
import { fetchThroughBalancer, startReplicaCluster } from '../../../e2e/__fixtures__/replica-cluster.ts';
import { startRedisServer } from '../src/testing/index.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const chats = Number(process.env.BENCH_CHATS ?? 6);
const root = new URL('../../../', import.meta.url).pathname;

// 90 s of answer: longer than any takeover, so every turn of the killed replica is still running when it dies.
const model = await startScriptedModelServer({
  handler: (): ScriptedStep[] => {
    const steps: ScriptedStep[] = [];
    for (let index = 0; index < 360; index += 1) {
      steps.push({ type: 'delay', ms: 250 }, { type: 'text', text: `part ${index}. ` });
    }
    return steps;
  },
});

async function newChat(base: string): Promise<string> {
  const response = await fetchThroughBalancer(`${base}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await response.json()) as { id: string }).id;
}

/** One round: returns the seconds from the kill to the `stop` of each turn the kill interrupted. */
async function round(index: number): Promise<number[]> {
  const redis = await startRedisServer();
  const cluster = await startReplicaCluster({
    redisUrl: redis.url,
    model: `openai-compatible:${model.url}/v1#scripted`,
    turnLockMs: 'default',
  });
  try {
    const ids = await Promise.all(Array.from({ length: chats }, () => newChat(cluster.url)));
    const stops = new Map<string, { at: number; reason: unknown }>();
    const streaming = new Set<string>();
    const follow = async (chatId: string) => {
      const first = await fetchThroughBalancer(`${cluster.url}/v1/chats/${chatId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ content: `question ${chatId}` }),
      });
      await followTurn({
        baseUrl: cluster.url,
        chatId,
        turn: 0,
        first,
        onPacket: (packet: WirePacket) => {
          if (packet.obj.type === 'message-delta') streaming.add(chatId);
          if (packet.obj.type === 'stop')
            stops.set(chatId, { at: performance.now(), reason: packet.obj.reason });
        },
      });
    };
    // The cluster stops under the turns still streaming at the end of the round: their errors are expected.
    for (const chatId of ids) follow(chatId).catch(() => undefined);
    while (streaming.size < chats) await new Promise((resolve) => setTimeout(resolve, 50));
    // Which replica runs which turn is the queue's choice: kill the second; its turns are the interrupted ones.
    const victim = cluster.replicas[1];
    if (victim === undefined) throw new Error('no second replica');
    const killedAt = performance.now();
    victim.child.kill('SIGKILL');
    await victim.exited;
    // The interrupted turns end within the takeover time (30–45 s by the settings); wait well past it. The other
    // turns stream on, and are not waited for.
    while (performance.now() - killedAt < 80_000) await new Promise((resolve) => setTimeout(resolve, 200));
    const interrupted = () => [...stops.values()].filter((stop) => stop.reason === 'interrupted');
    const seconds = interrupted().map((stop) => (stop.at - killedAt) / 1000);
    console.log(
      `round ${index + 1}: ${seconds.length} of ${chats} turns interrupted; kill → stop ${seconds
        .map((value) => `${value.toFixed(1)} s`)
        .join(', ')}`,
    );
    return seconds;
  } finally {
    await cluster.stop();
    await redis.stop();
  }
}

const loadAtStart = loadavg()[0] ?? Number.NaN;
console.log('## Takeover time with the default settings (kill -9 of a replica → its turns closed)\n');
console.log(
  `${cpus().length} cores, load ${loadAtStart.toFixed(1)} at start; git ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()}; ${rounds} rounds × ${chats} chats, 3 replicas, Redis, SQLite, --turn-lock-ms 30000, --stalled-check-ms 15000 (defaults)\n`,
);
const all: number[] = [];
for (let index = 0; index < rounds; index += 1) all.push(...(await round(index)));
all.sort((left, right) => left - right);
console.log(
  `\nkill → stop over ${all.length} interrupted turns: min ${all[0]?.toFixed(1)} s, median ${all[Math.floor(all.length / 2)]?.toFixed(1)} s, max ${all.at(-1)?.toFixed(1)} s (load ${(loadavg()[0] ?? Number.NaN).toFixed(1)} at the end)`,
);
await model.close();
process.exit(0);
