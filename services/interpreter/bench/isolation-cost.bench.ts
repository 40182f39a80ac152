// What the seccomp filter and the per-run cgroups cost on `print(1)`: two services side by side in one process,
// one with both (the default), one with both turned off, sampled interleaved so machine load hits both alike.
import { startInterpreterServer } from '../src/index.ts';

const samples = 100;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const hardened = await startInterpreterServer({});
const plain = await startInterpreterServer({ syscallFilter: false, cgroups: false });
const run = async (url: string): Promise<number> => {
  const started = performance.now();
  const response = await fetch(`${url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'print(1)' }),
  });
  const result = (await response.json()) as { stdout: string };
  if (result.stdout !== '1\n') throw new Error(`unexpected output ${JSON.stringify(result)}`);
  return performance.now() - started;
};

for (let warm = 0; warm < 5; warm += 1) {
  await run(hardened.url);
  await run(plain.url);
}
const hardenedTimes: number[] = [];
const plainTimes: number[] = [];
for (let index = 0; index < samples; index += 1) {
  // Alternate which goes first, so neither always runs on a cache the other warmed.
  if (index % 2 === 0) {
    hardenedTimes.push(await run(hardened.url));
    plainTimes.push(await run(plain.url));
  } else {
    plainTimes.push(await run(plain.url));
    hardenedTimes.push(await run(hardened.url));
  }
}
const filter = hardened.isolation.syscallFilter;
const cgroups = hardened.isolation.cgroups;
await hardened.close();
await plain.close();

const format = (value: number): string => value.toFixed(1);
console.log('## Interpreter: cost of the seccomp filter and per-run cgroups\n');
console.log(
  `${samples} sequential print(1) runs each, interleaved. Hardened service: seccomp filter ${filter ? 'on' : 'OFF'}, cgroups ${cgroups ?? 'OFF'}.\n`,
);
console.log('| Service | p50 ms | p95 ms |');
console.log('|---|---:|---:|');
for (const [name, times] of [
  ['seccomp filter + cgroup per run', hardenedTimes],
  ['neither (same sandbox otherwise)', plainTimes],
] as const) {
  console.log(`| ${name} | ${format(percentile(times, 0.5))} | ${format(percentile(times, 0.95))} |`);
}
const ratio = percentile(hardenedTimes, 0.5) / percentile(plainTimes, 0.5);
// Each pair ran back to back, so the median of the pairs' ratios is less exposed to load drifting over the run.
const pairRatios = hardenedTimes.map((time, index) => time / (plainTimes[index] ?? Number.NaN));
console.log(
  `\nRatio hardened/plain: p50 ${ratio.toFixed(3)}× (${((ratio - 1) * 100).toFixed(1)} %); median of the ${samples} paired ratios ${percentile(pairRatios, 0.5).toFixed(3)}×.\n`,
);
