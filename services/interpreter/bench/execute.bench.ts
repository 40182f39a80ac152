// Latency of `print(1)` through the interpreter service (HTTP + bubblewrap sandbox + the runner) against running
// `/usr/bin/python3 -c 'print(1)'` directly, in the same run; then executions per second with both cores busy.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { startInterpreterServer } from '../src/index.ts';

const execFileAsync = promisify(execFile);
const samples = 40;
const throughputSeconds = 8;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

async function timeOnce(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function throughput(run: () => Promise<void>, workers: number): Promise<number> {
  const deadline = performance.now() + throughputSeconds * 1000;
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        await run();
        completed += 1;
      }
    }),
  );
  return completed / ((performance.now() - started) / 1000);
}

const cores = availableParallelism();
const server = await startInterpreterServer({ limits: { maxConcurrent: cores } });
if (server.isolation.status === 'error') {
  console.log(`## Interpreter: print(1) latency\n\nSandbox unavailable: ${server.isolation.reason}\n`);
  await server.close();
  process.exit(1);
}
const viaService = async (): Promise<void> => {
  const response = await fetch(`${server.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'print(1)' }),
  });
  const result = (await response.json()) as { stdout: string };
  if (result.stdout !== '1\n') throw new Error(`unexpected output ${JSON.stringify(result)}`);
};
const direct = async (): Promise<void> => {
  const { stdout } = await execFileAsync('/usr/bin/python3', ['-c', 'print(1)']);
  if (stdout !== '1\n') throw new Error('unexpected output');
};

for (let warm = 0; warm < 5; warm += 1) {
  await viaService();
  await direct();
}
const serviceTimes: number[] = [];
const directTimes: number[] = [];
// Interleaved, so drift in machine load hits both sides alike.
for (let index = 0; index < samples; index += 1) {
  serviceTimes.push(await timeOnce(viaService));
  directTimes.push(await timeOnce(direct));
}
const serviceRate = await throughput(viaService, cores * 2);
const directRate = await throughput(direct, cores * 2);
await server.close();

const format = (value: number): string => value.toFixed(1);
const rows = [
  ['print(1) via the service (HTTP + sandbox)', serviceTimes],
  ["/usr/bin/python3 -c 'print(1)' directly", directTimes],
] as const;
console.log(`## Interpreter: print(1) latency and throughput\n`);
console.log(
  `${samples} sequential runs each, interleaved; then ${throughputSeconds} s with ${cores * 2} concurrent callers on ${cores} cores.\n`,
);
console.log('| Path | p50 ms | p95 ms | executions/s (all cores busy) |');
console.log('|---|---:|---:|---:|');
console.log(
  `| ${rows[0][0]} | ${format(percentile(rows[0][1], 0.5))} | ${format(percentile(rows[0][1], 0.95))} | ${format(serviceRate)} |`,
);
console.log(
  `| ${rows[1][0]} | ${format(percentile(rows[1][1], 0.5))} | ${format(percentile(rows[1][1], 0.95))} | ${format(directRate)} |`,
);
console.log(
  `\nRatio service/direct: p50 ${(percentile(serviceTimes, 0.5) / percentile(directTimes, 0.5)).toFixed(2)}×, ` +
    `p95 ${(percentile(serviceTimes, 0.95) / percentile(directTimes, 0.95)).toFixed(2)}×, ` +
    `throughput ${(serviceRate / directRate).toFixed(2)}× of direct.\n`,
);
