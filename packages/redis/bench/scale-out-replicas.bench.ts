// `npm run bench -- scale-out`: toolbus serve replicas behind HAProxy on one Redis and one storage (the SQLite file
// in WAL mode), in one run: turns per second with 1 and with 3 replicas (every turn calls a tool, then streams a
// short answer from the scripted model), resume latency through Redis (a reconnect with Last-Event-ID to a replica
// that is not running the turn, time to the first packet), and the kill -9 proof with 200 concurrent chats.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { type ScriptedStep, startScriptedModelServer } from '@toolbus/core/testing';
import { followTurn } from '../../../e2e/__fixtures__/follow-turn.ts';
import { fetchThroughBalancer, startReplicaCluster } from '../../../e2e/__fixtures__/replica-cluster.ts';
import { startRedisServer } from '../src/testing/index.ts';

const turnsPerRun = Number(process.env.BENCH_TURNS ?? 120);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 40);
const proofChats = Number(process.env.BENCH_PROOF_CHATS ?? 200);
const root = new URL('../../../', import.meta.url).pathname;

const redis = await startRedisServer();
let slowAnswers = false;
const model = await startScriptedModelServer({
  handler: (request): ScriptedStep[] => {
    const last = request.messages.at(-1);
    if (last?.role === 'user') {
      return [
        { type: 'text', text: 'Searching. ' },
        { type: 'tool-call', id: 'call_1', name: 'internal_search', arguments: { queries: [last.text] } },
      ];
    }
    const steps: ScriptedStep[] = [];
    for (let index = 0; index < 10; index += 1) {
      if (slowAnswers) steps.push({ type: 'delay', ms: 200 });
      steps.push({ type: 'text', text: `part ${index}. ` });
    }
    return steps;
  },
});
const modelString = `openai-compatible:${model.url}/v1#scripted`;

async function newChat(base: string): Promise<string> {
  const response = await fetchThroughBalancer(`${base}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await response.json()) as { id: string }).id;
}

async function oneTurn(base: string, content: string): Promise<{ chatId: string; packets: number }> {
  const chatId = await newChat(base);
  const first = await fetchThroughBalancer(`${base}/v1/chats/${chatId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ content }),
  });
  const followed = await followTurn({ baseUrl: base, chatId, turn: 0, first });
  return { chatId, packets: followed.packets.length };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function throughput(
  replicas: number,
): Promise<{ perSecond: number; chats: string[]; cluster: Awaited<ReturnType<typeof startReplicaCluster>> }> {
  const cluster = await startReplicaCluster({
    redisUrl: redis.url,
    model: modelString,
    replicas,
    turnLockMs: 10_000,
  });
  // Warm up every replica (module loading, first assembly), then measure.
  await Promise.all(
    Array.from({ length: replicas * 2 }, (_, index) => oneTurn(cluster.url, `warm ${index}`)),
  );
  const chats: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < turnsPerRun) {
        next += 1;
        chats.push((await oneTurn(cluster.url, `turn ${next}`)).chatId);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: turnsPerRun / seconds, chats, cluster };
}

const single = await throughput(1);
await single.cluster.stop();
const triple = await throughput(3);

// Resume latency: a turn still streaming (slow answers) on some replica; a client resumes with Last-Event-ID on
// every replica in turn, straight (not through HAProxy), so most resumes land on a replica that does not run it.
slowAnswers = true;
const resumeMs: number[] = [];
for (let round = 0; round < 20; round += 1) {
  const chatId = await newChat(triple.cluster.url);
  const started = await fetchThroughBalancer(
    `${triple.cluster.url}/v1/chats/${chatId}/messages?stream=none`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: `resume ${round}` }),
    },
  );
  await started.arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, 600));
  for (const replica of triple.cluster.replicas) {
    const at = performance.now();
    const response = await fetch(`http://127.0.0.1:${replica.port}/v1/chats/${chatId}/turns/0/stream`, {
      headers: { 'last-event-id': '1' },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    resumeMs.push(performance.now() - at);
    await reader.cancel();
  }
}
slowAnswers = false;
await triple.cluster.stop();
await model.close();
await redis.stop();

// The proof at full size: the e2e test with 200 chats (a kill -9 of one of three replicas).
const proofStarted = performance.now();
const proof = spawnSync(
  process.execPath,
  ['--conditions=development', '--test', '--test-reporter=spec', 'e2e/scale-out-replicas.test.ts'],
  { cwd: root, env: { ...process.env, TOOLBUS_SCALE_OUT_CHATS: String(proofChats) }, encoding: 'utf8' },
);
const proofSeconds = (performance.now() - proofStarted) / 1000;
const proofLine = /# (\d+ chats: [^\n]+)/.exec(proof.stdout)?.[1] ?? 'no summary (see the failure below)';

console.log('## Scale-out: replicas on Redis behind HAProxy\n');
console.log(
  `${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)} at the end (other work shares this machine). ` +
    `Every turn: one internal_search call, then a 10-chunk answer from the scripted model. Storage: one SQLite file (WAL) shared by the replicas.\n`,
);
console.log('| replicas | turns | concurrent clients | turns/s |');
console.log('| --- | --- | --- | --- |');
console.log(`| 1 | ${turnsPerRun} | ${concurrency} | ${single.perSecond.toFixed(1)} |`);
console.log(`| 3 | ${turnsPerRun} | ${concurrency} | ${triple.perSecond.toFixed(1)} |`);
console.log(`\n3 replicas / 1 replica: ${(triple.perSecond / single.perSecond).toFixed(2)}×\n`);
console.log(
  `Resume through Redis (Last-Event-ID on each replica, turn running on one of them; ${resumeMs.length} resumes): ` +
    `p50 ${percentile(resumeMs, 50).toFixed(1)} ms, p95 ${percentile(resumeMs, 95).toFixed(1)} ms to the first packet.\n`,
);
console.log(
  `Kill -9 proof with ${proofChats} chats: ${proof.status === 0 ? 'passed' : 'FAILED'} in ${proofSeconds.toFixed(0)} s — ${proofLine}.\n`,
);
if (proof.status !== 0) console.log(`\`\`\`\n${proof.stdout.slice(-3000)}\n\`\`\`\n`);
