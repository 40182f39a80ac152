// The recovery gateway's cost, side by side in one run: the same paced stream read directly from the upstream,
// through a plain node:http pass-through proxy, and through the gateway (tools declared, so every chunk goes through
// the answer filter). Added latency per chunk is the proxied delay less the direct delay (model write → client
// read); CPU per token is the proxy process's own CPU time. Rounds alternate the three paths.
//
// Three kinds of process, so no measurement shares an event loop or a garbage collector with what it measures:
// this one (the upstream, and the conductor), the proxy under test (gateway-bench-proxy.ts) and the client
// (gateway-bench-client.ts). Every chunk carries its write time on the machine's monotonic clock.
//
// Two loads: one stream (a chunk's own cost), and many streams whose chunks the upstream writes together, as a
// batching server (vLLM, SGLang) emits one token for every sequence of a batch at each step: a chunk then also
// waits for the proxy to handle the other chunks of its burst, and the p99 is that wait.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';

const levels = (process.env.GATEWAY_BENCH_STREAMS ?? '1,25').split(',').map(Number);
const chunksPerStream = Number(process.env.GATEWAY_BENCH_CHUNKS ?? 200);
const intervalMs = 10;
const rounds = Number(process.env.GATEWAY_BENCH_ROUNDS ?? 3);
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

// The upstream: each chunk's content carries the time it was written.
const upstream = createServer((incoming, outgoing) => {
  incoming.resume();
  incoming.on('end', () => {
    outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: `t${now().toFixed(3)} ` }, finish_reason: null }],
      };
      outgoing.write(`data: ${JSON.stringify(chunk)}\n\n`);
      sent += 1;
      if (sent === chunksPerStream) {
        clearInterval(timer);
        outgoing.end(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
        );
      }
    }, intervalMs);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

interface Usage {
  /** CPU time, µs. */
  cpu: number;
  /** Time in garbage collection pauses, ms. */
  gc: number;
}

interface Proxy {
  url: string;
  usage(): Promise<Usage>;
  stop(): void;
}

async function startProxy(mode: 'gateway' | 'passthrough'): Promise<Proxy> {
  const child = fork(new URL('./gateway-bench-proxy.ts', import.meta.url).pathname, [mode, upstreamUrl], {
    execArgv: [
      '--conditions=development',
      ...(process.env.GATEWAY_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve) =>
    child.once('message', (message) => resolve((message as { url: string }).url)),
  );
  return {
    url,
    usage: () =>
      new Promise((resolve) => {
        child.once('message', (message) => {
          const { cpu, gc } = message as { cpu: { user: number; system: number }; gc: number };
          resolve({ cpu: cpu.user + cpu.system, gc });
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
const requestBody = JSON.stringify({
  model: 'qwen3',
  stream: true,
  messages: [{ role: 'user', content: 'go' }],
  tools,
});

function load(base: string, streams: number): Promise<{ delays: number[]; chunks: number }> {
  return new Promise((resolve) => {
    client.once('message', (message) => resolve(message as { delays: number[]; chunks: number }));
    client.send({ load: { base, streams, body: requestBody } });
  });
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

type Path = 'direct' | 'passthrough' | 'gateway';
interface Result {
  delays: number[];
  cpu: number;
  gc: number;
  chunks: number;
}

const loadBefore = loadavg()[0] ?? 0;
const proxies = { passthrough: await startProxy('passthrough'), gateway: await startProxy('gateway') };
await load(proxies.gateway.url, Math.max(...levels)); // warm-up: JIT and sockets
await load(proxies.passthrough.url, Math.max(...levels));
const byLevel = new Map<number, Record<Path, Result>>();
for (const streams of levels) {
  const results: Record<Path, Result> = {
    direct: { delays: [], cpu: 0, gc: 0, chunks: 0 },
    passthrough: { delays: [], cpu: 0, gc: 0, chunks: 0 },
    gateway: { delays: [], cpu: 0, gc: 0, chunks: 0 },
  };
  for (let round = 0; round < rounds; round += 1) {
    const order: readonly Path[] =
      round % 2 === 0 ? ['direct', 'passthrough', 'gateway'] : ['gateway', 'passthrough', 'direct'];
    for (const path of order) {
      if (path === 'direct') {
        results.direct.delays.push(...(await load(upstreamUrl, streams)).delays);
        continue;
      }
      const before = await proxies[path].usage();
      const { delays, chunks } = await load(proxies[path].url, streams);
      const after = await proxies[path].usage();
      const result = results[path];
      result.delays.push(...delays);
      result.cpu += after.cpu - before.cpu;
      result.gc += after.gc - before.gc;
      result.chunks += chunks;
    }
  }
  byLevel.set(streams, results);
}
proxies.passthrough.stop();
proxies.gateway.stop();
upstream.close();
client.send({ stop: true });

console.log(`## gateway (recovery gateway vs a plain pass-through proxy)\n`);
console.log(
  `Chunks every ${intervalMs} ms, ${chunksPerStream} per stream, ${rounds} alternating rounds per load; tools declared, so every gateway chunk goes through the answer filter. The upstream, each proxy and the client run in processes of their own. Load average ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end.\n`,
);
console.log(
  '| streams | path | delay p50 (ms) | delay p99 (ms) | added p50 (ms) | added p99 (ms) | CPU per token (µs) | GC pauses per token (µs) |',
);
console.log('|---|---|---|---|---|---|---|---|');
const summary: string[] = [];
for (const [streams, results] of byLevel) {
  const direct50 = percentile(results.direct.delays, 50);
  const direct99 = percentile(results.direct.delays, 99);
  console.log(`| ${streams} | direct | ${direct50.toFixed(3)} | ${direct99.toFixed(3)} | — | — | — | — |`);
  for (const path of ['passthrough', 'gateway'] as const) {
    const result = results[path];
    const p50 = percentile(result.delays, 50);
    const p99 = percentile(result.delays, 99);
    console.log(
      `| ${streams} | ${path} | ${p50.toFixed(3)} | ${p99.toFixed(3)} | ${(p50 - direct50).toFixed(3)} | ${(p99 - direct99).toFixed(3)} | ${(result.cpu / result.chunks).toFixed(1)} | ${((result.gc * 1000) / result.chunks).toFixed(1)} |`,
    );
  }
  const gateway = results.gateway;
  const ratio = gateway.cpu / gateway.chunks / (results.passthrough.cpu / results.passthrough.chunks);
  summary.push(
    `${streams} stream${streams === 1 ? '' : 's'}: gateway CPU per token ${ratio.toFixed(2)}× the pass-through proxy (goal ≤ 1.5×); added p99 ${(percentile(gateway.delays, 99) - direct99).toFixed(3)} ms (goal ≤ 1 ms), the pass-through's ${(percentile(results.passthrough.delays, 99) - direct99).toFixed(3)} ms.`,
  );
}
console.log(`\n${summary.join('\n')}\n`);
