// `npm run bench -- live-skills`: what `toolbus serve`'s live skills cost a turn (openLiveChatSkills). Every turn that
// builds run_python reads the registry and compares names and content hashes with the set written last; only a
// change writes a new set. Measured side by side, with 3 and with 50 stored skills: a bare `registry.list()`, a
// turn's lease when nothing changed, and the first lease after one skill was replaced (the whole set written anew).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ingestSkillBundle, openSkillStores } from '@toolbus/skills';
import { forgeZip, skillMarkdown } from '../../skills/src/__fixtures__/forge-zip.ts';
import { openLiveChatSkills } from '../src/load-skills.ts';

const quick = process.argv.includes('--quick');
const rounds = quick ? 200 : 2000;
const changes = quick ? 5 : 20;
const silent = { info: () => {}, warn: () => {} };

function bundle(name: string, edition: number): Buffer {
  return forgeZip([
    { name: `${name}/SKILL.md`, data: skillMarkdown(name, `Skill ${name}, edition ${edition}.`) },
    { name: `${name}/scripts/run.py`, data: `print("${name} ${edition}")\n`.repeat(20) },
  ]);
}

/** Median and 95th percentile of `samples` in µs. */
function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  return `${(at(0.5) * 1000).toFixed(1)} / ${(at(0.95) * 1000).toFixed(1)}`;
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

console.log('## Live skills (toolbus serve): the per-turn check\n');
console.log(
  `${rounds} turns per row (median / p95 in µs); ${changes} changes for the last column (in ms).\n`,
);
console.log(
  '| stored skills | registry.list() | lease, nothing changed | ratio | first lease after a change (ms) |',
);
console.log('|---|---|---|---|---|');
for (const count of [3, 50]) {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-live-skills-bench-'));
  const stores = await openSkillStores(directory);
  for (let index = 0; index < count; index += 1) {
    await ingestSkillBundle({ ...stores, bundle: bundle(`skill-${index}`, 0) });
  }
  const live = await openLiveChatSkills({ ...stores, logger: silent });
  const list: number[] = [];
  const lease: number[] = [];
  // Interleaved, so both columns see the same moments of the machine.
  for (let round = 0; round < rounds; round += 1) {
    list.push(await timed(() => stores.registry.list()));
    lease.push(
      await timed(async () => {
        const held = await live.acquire();
        await held.release();
      }),
    );
  }
  const changed: number[] = [];
  for (let edition = 1; edition <= changes; edition += 1) {
    await ingestSkillBundle({ ...stores, bundle: bundle('skill-0', edition), replace: true });
    changed.push(
      await timed(async () => {
        const held = await live.acquire();
        await held.release();
      }),
    );
  }
  const median = (samples: number[]) =>
    [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;
  const changedSorted = [...changed].sort((a, b) => a - b);
  console.log(
    `| ${count} | ${summary(list)} | ${summary(lease)} | ${(median(lease) / median(list)).toFixed(2)}× | ${(changedSorted[Math.floor(changedSorted.length / 2)] ?? 0).toFixed(1)} |`,
  );
  await live.close();
  await stores.close();
  rmSync(directory, { recursive: true, force: true });
}
console.log(
  '\nA turn that starts after no change pays the lease column; only the first turn after an admin changed a skill pays the last.',
);
