// Cost of mounting skills: latency of `print(1)` through the service with no skills (the baseline), one skill and
// two skills (a read-only tmpfs at /workspace/managed plus one --ro-bind per skill), interleaved in the same run.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBuiltInSkill, materializeSkills } from '@toolbus/skills';
import { startInterpreterServer } from '../src/index.ts';

const samples = 40;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const scratch = await mkdtemp(join(tmpdir(), 'interpreter-skills-bench-'));
await chmod(scratch, 0o755);
const skillsRoot = join(scratch, 'skills');
await materializeSkills({
  skills: [
    await buildBuiltInSkill({ name: 'csv-analysis' }),
    await buildBuiltInSkill({ name: 'pdf-reports' }),
  ],
  targetDirectory: skillsRoot,
});
const server = await startInterpreterServer({ skillsRoot });
if (server.isolation.status === 'error') {
  console.log(`## Interpreter: skills mount cost\n\nSandbox unavailable: ${server.isolation.reason}\n`);
  await server.close();
  process.exit(1);
}

const variants = [
  { label: 'no skills (baseline)', skills: [] as string[] },
  { label: '1 skill', skills: ['csv-analysis'] },
  { label: '2 skills', skills: ['csv-analysis', 'pdf-reports'] },
];
const run = async (skills: string[]): Promise<number> => {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'print(1)', ...(skills.length > 0 ? { skills } : {}) }),
  });
  const result = (await response.json()) as { stdout: string };
  if (result.stdout !== '1\n') throw new Error(`unexpected output ${JSON.stringify(result)}`);
  return performance.now() - started;
};
for (let warm = 0; warm < 3; warm += 1) for (const variant of variants) await run(variant.skills);
const times = variants.map(() => [] as number[]);
// Interleaved, so drift in machine load hits every variant alike.
for (let index = 0; index < samples; index += 1) {
  for (const [position, variant] of variants.entries()) times[position]?.push(await run(variant.skills));
}
await server.close();
await rm(scratch, { recursive: true, force: true });

const baseline = percentile(times[0] ?? [], 0.5);
console.log('## Interpreter: skills mount cost\n');
console.log('| request | p50 ms | p95 ms | p50 vs no skills |');
console.log('|---|---|---|---|');
for (const [position, variant] of variants.entries()) {
  const values = times[position] ?? [];
  const p50 = percentile(values, 0.5);
  console.log(
    `| print(1), ${variant.label} | ${p50.toFixed(1)} | ${percentile(values, 0.95).toFixed(1)} | ${(p50 / baseline).toFixed(2)}x |`,
  );
}
console.log(`\n${samples} samples each, interleaved; one service, sandbox ${server.isolation.status}.\n`);
