// The recovery gateway's cost, side by side in one run: the same paced stream read directly from the upstream,
// through a plain node:http pass-through proxy, and through the gateway (tools declared, so every chunk goes through
// the answer filter). Added latency per chunk is the proxied delay less the direct delay (model write → client read);
// CPU per token is the proxy process's own CPU time. Rounds alternate the three paths.
import { fork } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const streams = Number(process.env.GATEWAY_BENCH_STREAMS ?? 25);
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

const now = (): number => performance.timeOrigin + performance.now();

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

interface Proxy {
  url: string;
  cpu(): Promise<number>;
  stop(): void;
}

async function startProxy(mode: 'gateway' | 'passthrough'): Promise<Proxy> {
  const child = fork(new URL('./gateway-bench-proxy.ts', import.meta.url).pathname, [mode, upstreamUrl], {
    execArgv: ['--conditions=development'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve) =>
    child.once('message', (message) => resolve((message as { url: string }).url)),
  );
  return {
    url,
    cpu: () =>
      new Promise((resolve) => {
        child.once('message', (message) => {
          const { cpu } = message as { cpu: { user: number; system: number } };
          resolve(cpu.user + cpu.system);
        });
        child.send('cpu');
      }),
    stop: () => child.send('stop'),
  };
}

function oneStream(base: string, delays: number[]): Promise<number> {
  const body = JSON.stringify({
    model: 'qwen3',
    stream: true,
    messages: [{ role: 'user', content: 'go' }],
    tools,
  });
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${base}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (answer) => {
        let buffer = '';
        let tokens = 0;
        answer.setEncoding('utf8');
        answer.on('data', (text: string) => {
          const read = now();
          buffer += text;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const line = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const match = /"content":"t([0-9.]+) /.exec(line);
            if (match?.[1]) {
              delays.push(read - Number(match[1]));
              tokens += 1;
            }
            end = buffer.indexOf('\n\n');
          }
        });
        answer.on('end', () => resolve(tokens));
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function load(base: string): Promise<{ delays: number[]; tokens: number }> {
  const delays: number[] = [];
  const counts = await Promise.all(Array.from({ length: streams }, () => oneStream(base, delays)));
  return { delays, tokens: counts.reduce((sum, count) => sum + count, 0) };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const results: Record<'direct' | 'passthrough' | 'gateway', { delays: number[]; cpuPerChunk: number[] }> = {
  direct: { delays: [], cpuPerChunk: [] },
  passthrough: { delays: [], cpuPerChunk: [] },
  gateway: { delays: [], cpuPerChunk: [] },
};
const proxies = { passthrough: await startProxy('passthrough'), gateway: await startProxy('gateway') };
await load(proxies.gateway.url); // warm-up: JIT and sockets
await load(proxies.passthrough.url);
for (let round = 0; round < rounds; round += 1) {
  const order =
    round % 2 === 0
      ? (['direct', 'passthrough', 'gateway'] as const)
      : (['gateway', 'passthrough', 'direct'] as const);
  for (const path of order) {
    if (path === 'direct') {
      results.direct.delays.push(...(await load(upstreamUrl)).delays);
      continue;
    }
    const before = await proxies[path].cpu();
    const { delays, tokens } = await load(proxies[path].url);
    const after = await proxies[path].cpu();
    results[path].delays.push(...delays);
    results[path].cpuPerChunk.push((after - before) / tokens);
  }
}
proxies.passthrough.stop();
proxies.gateway.stop();
upstream.close();

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
const direct50 = percentile(results.direct.delays, 50);
const direct99 = percentile(results.direct.delays, 99);
console.log(`## gateway (recovery gateway vs a plain pass-through proxy)\n`);
console.log(
  `${streams} concurrent streams × ${chunksPerStream} chunks every ${intervalMs} ms, ${rounds} alternating rounds; tools declared, so every gateway chunk goes through the answer filter.\n`,
);
console.log(
  '| path | delay p50 (ms) | delay p99 (ms) | added p50 (ms) | added p99 (ms) | CPU per token (µs) |',
);
console.log('|---|---|---|---|---|---|');
console.log(`| direct | ${direct50.toFixed(3)} | ${direct99.toFixed(3)} | — | — | — |`);
for (const path of ['passthrough', 'gateway'] as const) {
  const p50 = percentile(results[path].delays, 50);
  const p99 = percentile(results[path].delays, 99);
  console.log(
    `| ${path} | ${p50.toFixed(3)} | ${p99.toFixed(3)} | ${(p50 - direct50).toFixed(3)} | ${(p99 - direct99).toFixed(3)} | ${mean(results[path].cpuPerChunk).toFixed(1)} |`,
  );
}
const ratio = mean(results.gateway.cpuPerChunk) / mean(results.passthrough.cpuPerChunk);
console.log(
  `\nGateway CPU per token: ${ratio.toFixed(2)}× the pass-through proxy (goal ≤ 1.5×); added p99 ${(percentile(results.gateway.delays, 99) - direct99).toFixed(3)} ms (goal ≤ 1 ms).\n`,
);
