// `npm run bench -- scale-out`: toolbus serve replicas behind HAProxy on one Redis and one PostgreSQL cluster (each
// run its own database, every replica of a run on it), in one run: turns per second with 1 and with 3 replicas
// (every turn calls a tool, then streams a short answer from the scripted model), resume latency through Redis (a
// reconnect with Last-Event-ID to a replica that is not running the turn, time to the first packet), and the kill -9
// proof with 200 concurrent chats (the e2e test, which brings its own PostgreSQL and Redis).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { startScriptedModelServer } from '@toolbus/core/testing';
import { omitUndefined } from '@toolbus/spec';
import { startTestPostgres } from '@toolbus/storage-postgres/testing';
import { followTurn } from '../../../e2e/__fixtures__/follow-turn.ts';
import { fetchThroughBalancer, startReplicaCluster } from '../../../e2e/__fixtures__/replica-cluster.ts';
import { searchThenAnswer } from '../../../e2e/__fixtures__/search-then-answer.ts';
import { startRedisServer } from '../src/testing/index.ts';

const turnsPerRun = Number(process.env.BENCH_TURNS ?? 120);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 40);
const proofChats = Number(process.env.BENCH_PROOF_CHATS ?? 200);
const root = new URL('../../../', import.meta.url).pathname;

const loadAtStart = loadavg()[0] ?? Number.NaN;
// Durable as a deployment's (fsync at checkpoints; commits do not wait for the disk), like the storage benchmark's.
const [postgres, redis] = await Promise.all([startTestPostgres({ durable: true }), startRedisServer()]);
const secretKey = randomBytes(32).toString('base64');
let slowAnswers = false;
const model = await startScriptedModelServer({
  handler: searchThenAnswer({ parts: 10, delayMs: () => (slowAnswers ? 200 : 0) }),
});
const modelString = `openai-compatible:${model.url}/v1#scripted`;

async function newChat(base: string): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const response = await fetchThroughBalancer(`${base}/v1/chats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return ((await response.json()) as { id: string }).id;
    } catch (error) {
      // A connection the balancer closed as it was reused: an extra empty chat at worst.
      if (attempt >= 5) throw error;
    }
  }
}

async function oneTurn(base: string, content: string): Promise<{ chatId: string; packets: number }> {
  const chatId = await newChat(base);
  for (let attempt = 1; ; attempt += 1) {
    let first: Response | undefined;
    try {
      first = await fetchThroughBalancer(`${base}/v1/chats/${chatId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ content }),
      });
    } catch (error) {
      // The connection closed before an answer: follow the turn if the request reached a replica, else resend.
      const detail = (await (await fetchThroughBalancer(`${base}/v1/chats/${chatId}`)).json()) as {
        turns?: unknown[];
      };
      if ((detail.turns?.length ?? 0) === 0) {
        if (attempt >= 5) throw error;
        continue;
      }
    }
    const followed = await followTurn({ baseUrl: base, chatId, turn: 0, ...omitUndefined({ first }) });
    return { chatId, packets: followed.packets.length };
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

type Cluster = Awaited<ReturnType<typeof startReplicaCluster>>;

/** Clock ticks per second of /proc's CPU times. */
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU seconds (user + system) a process used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return 0;
  }
}

const replicasCpu = (cluster: Cluster) =>
  cluster.replicas.reduce((sum, replica) => sum + cpuSeconds(replica.child.pid), 0);

async function startCluster(replicas: number): Promise<Cluster> {
  const cluster = await startReplicaCluster({
    // A Redis database of its own: two deployments with the same key prefix in one database would take each
    // other's queued turns.
    redisUrl: `${redis.url}/${replicas}`,
    model: modelString,
    replicas,
    turnLockMs: 10_000,
    // Every replica of the cluster on one fresh PostgreSQL database, secrets sealed with one shared key.
    environment: { TOOLBUS_STORAGE_URL: await postgres.createDatabase(), TOOLBUS_SECRET_KEY: secretKey },
  });
  // Warm up every replica (module loading, first assembly) before anything is measured.
  await Promise.all(
    Array.from({ length: replicas * 4 }, (_, index) => oneTurn(cluster.url, `warm ${index}`)),
  );
  return cluster;
}

/** One measured round: `turnsPerRun` turns by `concurrency` clients; turns per second and replica CPU per turn. */
async function round(cluster: Cluster, label: string): Promise<{ perSecond: number; cpuMsPerTurn: number }> {
  let next = 0;
  const cpuBefore = replicasCpu(cluster);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < turnsPerRun) {
        next += 1;
        await oneTurn(cluster.url, `${label} turn ${next}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: turnsPerRun / seconds,
    cpuMsPerTurn: ((replicasCpu(cluster) - cpuBefore) * 1000) / turnsPerRun,
  };
}

// Both clusters up at once (the idle one only answers health checks), measured in alternating rounds, so a change
// of the machine's load during the run weighs on both alike; the median round of each is reported.
const single = await startCluster(1);
const triple = await startCluster(3);
const singleRounds: { perSecond: number; cpuMsPerTurn: number }[] = [];
const tripleRounds: { perSecond: number; cpuMsPerTurn: number }[] = [];
for (let index = 0; index < rounds; index += 1) {
  singleRounds.push(await round(single, `single ${index}`));
  tripleRounds.push(await round(triple, `triple ${index}`));
}
await single.stop();
const medianOf = (values: readonly number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;
const singlePerSecond = medianOf(singleRounds.map((run) => run.perSecond));
const triplePerSecond = medianOf(tripleRounds.map((run) => run.perSecond));
const singleCpu = medianOf(singleRounds.map((run) => run.cpuMsPerTurn));
const tripleCpu = medianOf(tripleRounds.map((run) => run.cpuMsPerTurn));

// Resume latency: a turn still streaming (slow answers) on some replica; a client resumes with Last-Event-ID on
// every replica in turn, straight (not through HAProxy), so most resumes land on a replica that does not run it.
slowAnswers = true;
const resumeMs: number[] = [];
for (let round = 0; round < 20; round += 1) {
  const chatId = await newChat(triple.url);
  const started = await fetchThroughBalancer(`${triple.url}/v1/chats/${chatId}/messages?stream=none`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: `resume ${round}` }),
  });
  await started.arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, 600));
  for (const replica of triple.replicas) {
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
await triple.stop();
await model.close();
await redis.stop();
await postgres.stop();

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
  `${cpus().length} cores, 1-minute load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]?.toFixed(1)} at the end (other work shares this machine). ` +
    `Every turn: one internal_search call, then a 10-chunk answer from the scripted model. Storage: PostgreSQL (one database per run, shared by its replicas; fsync on, synchronous_commit off); ` +
    `Redis and HAProxy on loopback; the replicas share one sandbox service.\n`,
);
console.log(
  '| replicas | turns per round | concurrent clients | turns/s (median of rounds) | replica CPU ms per turn |',
);
console.log('| --- | --- | --- | --- | --- |');
console.log(
  `| 1 | ${turnsPerRun} | ${concurrency} | ${singlePerSecond.toFixed(1)} (${singleRounds.map((run) => run.perSecond.toFixed(1)).join(', ')}) | ${singleCpu.toFixed(0)} |`,
);
console.log(
  `| 3 | ${turnsPerRun} | ${concurrency} | ${triplePerSecond.toFixed(1)} (${tripleRounds.map((run) => run.perSecond.toFixed(1)).join(', ')}) | ${tripleCpu.toFixed(0)} |`,
);
console.log(`\n3 replicas / 1 replica: ${(triplePerSecond / singlePerSecond).toFixed(2)}×\n`);
const ratio = triplePerSecond / singlePerSecond;
console.log(
  ratio < 1.15
    ? `With ${cpus().length} cores shared by the replicas, PostgreSQL, Redis, HAProxy, the model server and the clients, one replica already gets the CPU the machine has, so three add no throughput here (each turn costs about as much CPU either way): what replicas buy on this machine is surviving the death of one. More turns per second need replicas with cores of their own.\n`
    : `Three replicas ran ${ratio.toFixed(2)}× the turns per second of one on ${cpus().length} cores.\n`,
);
console.log(
  `Resume through Redis (Last-Event-ID on each replica, turn running on one of them; ${resumeMs.length} resumes): ` +
    `p50 ${percentile(resumeMs, 50).toFixed(1)} ms, p95 ${percentile(resumeMs, 95).toFixed(1)} ms to the first packet.\n`,
);
console.log(
  `Kill -9 proof with ${proofChats} chats: ${proof.status === 0 ? 'passed' : 'FAILED'} in ${proofSeconds.toFixed(0)} s — ${proofLine}.\n`,
);
if (proof.status !== 0) console.log(`\`\`\`\n${proof.stdout.slice(-3000)}\n\`\`\`\n`);
