// The recovery gateway's cost, side by side in one run: the same paced stream read directly from the upstream,
// through a plain node:http pass-through proxy, and through the gateway (tools declared, so every chunk goes through
// the answer filter). Added latency per chunk is the proxied delay less the direct delay (model write → client
// read); CPU per token is the proxy process's own CPU time. Rounds alternate the three paths.
//
// Three kinds of process, so no measurement shares an event loop or a garbage collector with what it measures:
// this one (the upstream, and the conductor), the proxy under test (gateway-bench-proxy.ts) and the client
// (gateway-bench-client.ts). Every chunk carries its write time on the machine's monotonic clock.
//
// Loads: one stream (a chunk's own cost), and many streams, either aligned (the upstream writes every stream's
// chunk in the same timer pass, as a batching server emits one token for every sequence of a batch at each step:
// a chunk then also waits for the proxy to handle the other chunks of its burst) or independent (each stream on a
// phase of its own). Both are printed; see `Phasing`.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { loadGatewaySnapshot } from './gateway-bench-baseline.ts';
import { type EdgeRow, edgeTable, percentile } from './gateway-bench-edges.ts';
import { startHaproxyPassthrough } from './gateway-bench-haproxy.ts';
import { pin, placement, schedulingPolicy } from './gateway-bench-pinning.ts';
import { addThreadTimes, type ThreadRow, type ThreadTimes, threadTable } from './gateway-bench-threads.ts';

const levels = (process.env.GATEWAY_BENCH_STREAMS ?? '1,25').split(',').map(Number);
const chunksPerStream = Number(process.env.GATEWAY_BENCH_CHUNKS ?? 200);
const intervalMs = 10;
const rounds = Number(process.env.GATEWAY_BENCH_ROUNDS ?? 3);
// A p99 needs enough delays to stand on: at least this many per path and load (2,000 puts 20 above it). One stream
// of 200 chunks in 3 rounds gave 600, whose p99 was its 6th worst delay: one scheduling hiccup moved it by a
// millisecond. A load with fewer delays per round runs more rounds.
const minimumDelays = Number(process.env.GATEWAY_BENCH_MIN_DELAYS ?? 2000);
const roundsFor = (streams: number): number =>
  Math.max(rounds, Math.ceil(minimumDelays / (streams * chunksPerStream)));
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

// The monotonic clock, in ms: one clock for every process on the machine (each process's `performance.timeOrigin`
// is read from the wall clock at its start, and differed between processes by milliseconds).
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

// How the streams' chunks are timed against each other (at one stream the three are the same):
// - `arrival`: each stream's own 10 ms interval, started when its request arrives (what this bench did before
//   phasing was a choice): streams whose requests arrive in the same millisecond write in the same timer pass.
// - `aligned`: one timer writes a chunk to every stream in the same pass, as a batching server (vLLM, SGLang)
//   emits a token for every sequence of its batch at each step: a chunk then also waits while a proxy handles the
//   other chunks of its burst.
// - `independent`: each stream on a phase of its own, spread evenly over the interval from the load's start (at the
//   timers' 1 ms resolution, 2–3 of 25 streams share a millisecond), each write timed from that phase rather than
//   from the last write so the phases do not drift into each other: streams from separate clients of a server
//   that does not batch them together.
type Phasing = 'arrival' | 'aligned' | 'independent';
const phasingNames: readonly Phasing[] = ['arrival', 'aligned', 'independent'];
const phasings = (process.env.GATEWAY_BENCH_PHASES ?? phasingNames.join(',')).split(',') as Phasing[];
for (const phasing of phasings)
  if (!phasingNames.includes(phasing))
    throw new Error(`GATEWAY_BENCH_PHASES: ${phasing} is not one of ${phasingNames.join(', ')}`);
/** The current load: its phasing and stream count, when it started, its streams so far and its shared timer. */
const timing = {
  phasing: 'arrival' as Phasing,
  streams: 1,
  origin: 0,
  started: 0,
  batch: new Set<() => boolean>(),
  ticker: undefined as NodeJS.Timeout | undefined,
};
/** The upstream's writes per timer pass (shows whether the streams' chunks are written together). */
const passes = { writes: 0, count: 0, pending: 0 };
const countWrite = (): void => {
  passes.writes += 1;
  if (passes.pending === 0) {
    passes.count += 1;
    setImmediate(() => {
      passes.pending = 0;
    });
  }
  passes.pending += 1;
};

// The upstream: each chunk's content carries the time it was written.
const upstream = createServer((incoming, outgoing) => {
  incoming.resume();
  incoming.on('end', () => {
    outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
    const stream = timing.started;
    timing.started += 1;
    let sent = 0;
    const writeChunk = (): boolean => {
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: `t${now().toFixed(3)} ` }, finish_reason: null }],
      };
      outgoing.write(`data: ${JSON.stringify(chunk)}\n\n`);
      countWrite();
      sent += 1;
      if (sent < chunksPerStream) return true;
      outgoing.end(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
      return false;
    };
    if (timing.phasing === 'arrival') {
      const timer = setInterval(() => {
        if (!writeChunk()) clearInterval(timer);
      }, intervalMs);
    } else if (timing.phasing === 'aligned') joinBatch(writeChunk);
    else {
      let start = timing.origin + ((stream % timing.streams) * intervalMs) / timing.streams;
      while (start < now()) start += intervalMs;
      const next = (): void => {
        if (writeChunk()) setTimeout(next, Math.max(0, start + (sent + 1) * intervalMs - now()));
      };
      setTimeout(next, Math.max(0, start + intervalMs - now()));
    }
  });
});

// The `aligned` load's one timer: every stream that has started gets its chunk in the same pass.
function joinBatch(writeChunk: () => boolean): void {
  const batch = timing.batch;
  batch.add(writeChunk);
  if (timing.ticker !== undefined) return;
  const ticker = setInterval(() => {
    for (const write of batch) if (!write()) batch.delete(write);
    if (batch.size === 0) clearInterval(ticker);
  }, intervalMs);
  timing.ticker = ticker;
}
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

interface Usage {
  /** CPU time, µs. */
  cpu: number;
  /** Time in garbage collection pauses, ms. */
  gc: number;
  /** Bytes allocated in the young generation. */
  allocated: number;
  /** CPU time by thread and the main thread's sleeps (Linux; see gateway-bench-threads.ts). */
  threads?: ThreadTimes | undefined;
}

interface Proxy {
  url: string;
  usage(): Promise<Usage>;
  stop(): void;
}

async function startProxy(mode: 'gateway' | 'passthrough' | 'relay', gatewayModule?: string): Promise<Proxy> {
  const args = [mode, upstreamUrl, ...(gatewayModule === undefined ? [] : [gatewayModule])];
  const child = fork(new URL('./gateway-bench-proxy.ts', import.meta.url).pathname, args, {
    execArgv: [
      '--conditions=development',
      ...(process.env.GATEWAY_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      // Flags for the current gateway alone (not the pass-through, not the gateway before), e.g. a V8 heap setting.
      ...(mode === 'gateway' && gatewayModule === undefined
        ? (process.env.GATEWAY_BENCH_GATEWAY_FLAGS ?? '').split(' ').filter(Boolean)
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  pin(child.pid, 'proxy');
  const url = await new Promise<string>((resolve) =>
    child.once('message', (message) => resolve((message as { url: string }).url)),
  );
  return {
    url,
    usage: () =>
      new Promise((resolve) => {
        child.once('message', (message) => {
          const { cpu, gc, allocated, threads } = message as {
            cpu: { user: number; system: number };
            gc: number;
            allocated: number;
            threads?: ThreadTimes;
          };
          resolve({ cpu: cpu.user + cpu.system, gc, allocated, threads });
        });
        child.send('usage');
      }),
    stop: () => child.send('stop'),
  };
}

// The client, in a process of its own (see gateway-bench-client.ts).
const client = fork(new URL('./gateway-bench-client.ts', import.meta.url).pathname, [], {
  execArgv: ['--conditions=development'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
await new Promise((resolve) => client.once('message', resolve));
pin(client.pid, 'rest');
pin(process.pid, 'rest');
const requestBody = JSON.stringify({
  model: 'qwen3',
  stream: true,
  messages: [{ role: 'user', content: 'go' }],
  tools,
});

interface LoadResult {
  delays: number[];
  /** Each delay's chunk position in its stream (see gateway-bench-edges.ts). */
  positions: number[];
  /** Each stream's first and last chunk's delay. */
  edges: { first: number[]; last: number[] };
  chunks: number;
}

function load(base: string, streams: number, phasing: Phasing = 'arrival'): Promise<LoadResult> {
  Object.assign(timing, { phasing, streams, origin: now(), started: 0, batch: new Set(), ticker: undefined });
  return new Promise((resolve) => {
    client.once('message', (message) => resolve(message as LoadResult));
    client.send({ load: { base, streams, body: requestBody } });
  });
}

type Path = 'direct' | 'passthrough' | 'relay' | 'haproxy' | 'gateway' | 'gateway before';
interface Result {
  delays: number[];
  positions: number[];
  first: number[];
  last: number[];
  cpu: number;
  gc: number;
  allocated: number;
  chunks: number;
  threads: ThreadTimes | undefined;
}

// A C-level pass-through (HAProxy), and optionally the gateway of an earlier commit (GATEWAY_BENCH_BASELINE), run
// beside the others in the same rounds.
const haproxy = await startHaproxyPassthrough(upstreamUrl);
pin(haproxy?.pid, 'proxy');
const baseline =
  process.env.GATEWAY_BENCH_BASELINE === undefined
    ? undefined
    : loadGatewaySnapshot(process.env.GATEWAY_BENCH_BASELINE);
const loadBefore = loadavg()[0] ?? 0;
const proxies: Partial<Record<Path, Proxy>> = {
  passthrough: await startProxy('passthrough'),
  gateway: await startProxy('gateway'),
};
if (baseline !== undefined) proxies['gateway before'] = await startProxy('gateway', baseline.gatewayServer);
// GATEWAY_BENCH_RELAY=1: also a pass-through doing the gateway's socket work and nothing else (its event reader and
// one socket write per chunk, no repair): the floor for a relay built like the gateway's on node:http.
if (process.env.GATEWAY_BENCH_RELAY === '1') proxies.relay = await startProxy('relay');
if (haproxy !== undefined) {
  proxies.haproxy = {
    url: haproxy.url,
    usage: async () => ({ cpu: haproxy.cpu(), gc: Number.NaN, allocated: Number.NaN }),
    stop: () => void haproxy.stop(),
  };
}
const paths = (['direct', 'passthrough', 'relay', 'haproxy', 'gateway before', 'gateway'] as const).filter(
  (path) => path === 'direct' || proxies[path] !== undefined,
);
// Warm-up at the largest stream count. GATEWAY_BENCH_WARMUP=each also warms up at every other count, the largest first
// and one stream last: a load's figures then leave out the code V8 compiles only once that load's paths run (at one
// stream a read holds one event, at 25 several), which otherwise lands in the first rounds' CPU per token.
const warmUps =
  process.env.GATEWAY_BENCH_WARMUP === 'each'
    ? [...new Set(levels)].sort((a, b) => b - a)
    : [Math.max(...levels)];
for (const streams of warmUps)
  for (const path of paths) if (path !== 'direct') await load(proxies[path]!.url, streams);
/** One load: a stream count and how its streams are phased (see `Phasing`). */
interface Load {
  streams: number;
  phasing: Phasing;
}
const loads: Load[] = levels.flatMap((streams) =>
  streams === 1
    ? [{ streams, phasing: 'aligned' as const }]
    : phasings.map((phasing) => ({ streams, phasing })),
);
const byLoad = new Map<Load, { results: Partial<Record<Path, Result>>; writesPerPass: number }>();
for (const { streams, phasing } of loads) {
  const results: Partial<Record<Path, Result>> = {};
  for (const path of paths)
    results[path] = {
      delays: [],
      positions: [],
      first: [],
      last: [],
      cpu: 0,
      gc: 0,
      allocated: 0,
      chunks: 0,
      threads: { main: 0, helpers: 0, other: 0, mainSleeps: 0 },
    };
  passes.writes = 0;
  passes.count = 0;
  for (let round = 0; round < roundsFor(streams); round += 1) {
    // Every path in every round, the order reversed every other round: neighbouring runs share the machine's state.
    const order = round % 2 === 0 ? paths : [...paths].reverse();
    for (const path of order) {
      const result = results[path]!;
      if (path === 'direct') {
        const { delays, positions, edges } = await load(upstreamUrl, streams, phasing);
        result.delays.push(...delays);
        result.positions.push(...positions);
        result.first.push(...edges.first);
        result.last.push(...edges.last);
        continue;
      }
      const proxy = proxies[path]!;
      const before = await proxy.usage();
      const { delays, positions, edges, chunks } = await load(proxy.url, streams, phasing);
      const after = await proxy.usage();
      result.delays.push(...delays);
      result.positions.push(...positions);
      result.first.push(...edges.first);
      result.last.push(...edges.last);
      result.cpu += after.cpu - before.cpu;
      result.gc += after.gc - before.gc;
      result.allocated += after.allocated - before.allocated;
      result.chunks += chunks;
      result.threads = addThreadTimes(result.threads, before.threads, after.threads);
    }
  }
  byLoad.set({ streams, phasing }, { results, writesPerPass: passes.writes / passes.count });
}
for (const proxy of Object.values(proxies)) proxy.stop();
upstream.close();
client.send({ stop: true });

console.log(`## gateway (recovery gateway vs a plain pass-through proxy)\n`);
console.log(
  `Chunks every ${intervalMs} ms, ${chunksPerStream} per stream, ${levels.map((streams) => `${roundsFor(streams)} alternating rounds at ${streams} stream${streams === 1 ? '' : 's'}`).join(', ')} (at least ${minimumDelays} delays per path and load); tools declared, so every gateway chunk goes through the answer filter. The upstream, each proxy and the client run in processes of their own. Load average ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end; scheduling ${schedulingPolicy()}; ${placement()}${haproxy === undefined ? '; no haproxy installed' : `; haproxy: ${haproxy.version}`}${baseline === undefined ? '' : `; gateway before: ${baseline.commit}`}.\n`,
);
console.log(
  '| streams | phases (upstream writes per timer pass) | path | delay p50 (ms) | delay p99 (ms) | added p50 (ms) | added p99 (ms) | first / last chunk p50 (ms) | CPU per token (µs) | GC pauses per token (µs) | young-generation bytes per token |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const summary: string[] = [];
for (const [{ streams, phasing }, { results, writesPerPass }] of byLoad) {
  const phases = streams === 1 ? '—' : `${phasing} (${writesPerPass.toFixed(1)})`;
  const direct50 = percentile(results.direct!.delays, 50);
  const direct99 = percentile(results.direct!.delays, 99);
  const added99 = (path: Path) => percentile(results[path]!.delays, 99) - direct99;
  const edges = (path: Path) =>
    `${percentile(results[path]!.first, 50).toFixed(3)} / ${percentile(results[path]!.last, 50).toFixed(3)}`;
  console.log(
    `| ${streams} | ${phases} | direct | ${direct50.toFixed(3)} | ${direct99.toFixed(3)} | — | — | ${edges('direct')} | — | — | — |`,
  );
  for (const path of paths) {
    if (path === 'direct') continue;
    const result = results[path]!;
    const p50 = percentile(result.delays, 50);
    const p99 = percentile(result.delays, 99);
    const gc = Number.isNaN(result.gc) ? '—' : ((result.gc * 1000) / result.chunks).toFixed(1);
    const allocated = Number.isNaN(result.allocated) ? '—' : (result.allocated / result.chunks).toFixed(0);
    console.log(
      `| ${streams} | ${phases} | ${path} | ${p50.toFixed(3)} | ${p99.toFixed(3)} | ${(p50 - direct50).toFixed(3)} | ${(p99 - direct99).toFixed(3)} | ${edges(path)} | ${(result.cpu / result.chunks).toFixed(1)} | ${gc} | ${allocated} |`,
    );
  }
  const gateway = results.gateway!;
  const ratio = gateway.cpu / gateway.chunks / (results.passthrough!.cpu / results.passthrough!.chunks);
  const floor = results.haproxy === undefined ? '' : `, HAProxy's ${added99('haproxy').toFixed(3)} ms`;
  const relay = results.relay === undefined ? '' : `, the relay alone's ${added99('relay').toFixed(3)} ms`;
  const before =
    results['gateway before'] === undefined
      ? ''
      : `, the gateway before's ${added99('gateway before').toFixed(3)} ms`;
  summary.push(
    `${streams} stream${streams === 1 ? '' : 's'}${streams === 1 ? '' : `, ${phasing}`}: gateway CPU per token ${ratio.toFixed(2)}× the pass-through proxy (goal ≤ 1.5×); added p99 ${added99('gateway').toFixed(3)} ms (goal ≤ 1 ms), the pass-through's ${added99('passthrough').toFixed(3)} ms${relay}${floor}${before}.`,
  );
}
console.log(`\n${summary.join('\n')}\n`);
// What each proxy's CPU per token is made of (see gateway-bench-threads.ts): the proxies other than HAProxy.
// GATEWAY_BENCH_EDGES=1: also where in its stream a slow chunk sits (gateway-bench-edges.ts).
const threadRows: ThreadRow[] = [];
const edgeRows: EdgeRow[] = [];
for (const [{ streams, phasing }, { results }] of byLoad)
  for (const path of paths) {
    const result = results[path];
    if (path === 'direct' || result === undefined) continue;
    const load = streams === 1 ? '1 stream' : `${streams} streams, ${phasing}`;
    edgeRows.push({ load, path, samples: result, direct: results.direct!, chunksPerStream });
    if (path !== 'haproxy') threadRows.push({ load, path, threads: result.threads, chunks: result.chunks });
  }
const threads = threadTable(threadRows);
if (threads !== '') console.log(`CPU per token by thread:\n\n${threads}`);
if (process.env.GATEWAY_BENCH_EDGES === '1') console.log(`By chunk position:\n\n${edgeTable(edgeRows)}`);
