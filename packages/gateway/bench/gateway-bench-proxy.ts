// A child process of the gateway benchmark: serves either the gateway or a plain node:http pass-through proxy in
// front of the benchmark's upstream, so its CPU time is its own. Talks to the parent over IPC: `usage` answers
// with its CPU time, the time it spent in garbage collection pauses and the bytes it allocated in the young
// generation (what makes scavenges: unlike times, a count that other processes on the machine do not change).
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { startGateway as currentGateway } from '../src/gateway-server.ts';
import { relayEvents } from '../src/relay-events.ts';
import { threadTimes } from './gateway-bench-threads.ts';

// A third argument names another gateway-server.ts (an earlier commit's, see gateway-bench-baseline.ts).
const [mode, upstreamUrl, gatewayModule] = process.argv.slice(2) as [
  'gateway' | 'passthrough' | 'relay',
  string,
  string | undefined,
];
const startGateway: typeof currentGateway =
  gatewayModule === undefined ? currentGateway : (await import(gatewayModule)).startGateway;

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

// Young-generation bytes allocated so far: what the young spaces held before each collection less what they held
// after the one before, plus what they hold now.
const youngSpaces = new Set(['new_space', 'new_large_object_space']);
type Spaces = { spaceName?: string; space_name?: string; spaceUsedSize?: number; space_used_size?: number }[];
const youngUsed = (spaces: Spaces): number =>
  spaces
    .filter((space) => youngSpaces.has(space.spaceName ?? space.space_name ?? ''))
    .reduce((sum, space) => sum + (space.spaceUsedSize ?? space.space_used_size ?? 0), 0);
let profiler = new GCProfiler();
profiler.start();
let youngBefore = youngUsed(getHeapSpaceStatistics() as Spaces);
let allocated = 0;
function allocatedSoFar(): number {
  for (const gc of profiler.stop()?.statistics ?? []) {
    allocated += youngUsed(gc.beforeGC.heapSpaceStatistics as Spaces) - youngBefore;
    youngBefore = youngUsed(gc.afterGC.heapSpaceStatistics as Spaces);
  }
  const now = youngUsed(getHeapSpaceStatistics() as Spaces);
  allocated += now - youngBefore;
  youngBefore = now;
  profiler = new GCProfiler();
  profiler.start();
  return allocated;
}

async function start(): Promise<string> {
  if (mode === 'gateway') {
    const gateway = await startGateway({ upstreams: [{ name: 'bench', baseUrl: `${upstreamUrl}/v1` }] });
    return gateway.url;
  }
  // `passthrough`: what a TypeScript user writes without toolbus: pipe the request and the answer through.
  const upstream = new URL(upstreamUrl);
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        if (mode === 'passthrough') {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          return;
        }
        // `relay`: the gateway's own socket work (its event reader, one socket write per chunk, its backpressure)
        // and nothing else: no request checks, no repair. What a Node relay written like the gateway costs. With no
        // repair every event is quick, so none waits for a later turn of the loop.
        outgoing.writeHead(answer.statusCode ?? 502, { 'content-type': 'text/event-stream' });
        const relaying = {
          upstreamResponse: answer,
          response: outgoing,
          repair: () => undefined,
          quick: () => true,
        };
        relayEvents(relaying).then(
          () => outgoing.end(),
          () => outgoing.destroy(),
        );
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const url = await start();
// With V8 flags set (GATEWAY_BENCH_NODE_FLAGS, e.g. --trace-gc), say which process is which: their output interleaves.
if (process.execArgv.some((flag) => !flag.startsWith('--conditions')))
  console.error(
    `gateway-bench-proxy: ${mode}${gatewayModule === undefined ? '' : ' before'} is pid ${process.pid}`,
  );
process.send?.({ url });
process.on('message', (message) => {
  if (message === 'usage')
    process.send?.({
      cpu: process.cpuUsage(),
      gc: gcMs,
      allocated: allocatedSoFar(),
      threads: threadTimes(),
    });
  if (message === 'stop') process.exit(0);
});
