// `npm run bench`: runs every benchmark file (packages/*/bench/*.bench.ts, services/*/bench/*.bench.ts, apps/*/bench/) one after
// another in its own process, so one benchmark's garbage or open handles never skew the next. Each file prints its
// own Markdown section (figures and ratios measured side by side in the same run). Arguments filter by path;
// flags (`--quick`) are handed to each benchmark.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const files: string[] = [];
for (const top of ['packages', 'services', 'apps']) {
  const topPath = join(root, top);
  if (!existsSync(topPath)) continue;
  for (const name of readdirSync(topPath)) {
    const benchPath = join(topPath, name, 'bench');
    if (!existsSync(benchPath)) continue;
    for (const file of readdirSync(benchPath)) {
      if (file.endsWith('.bench.ts')) files.push(relative(root, join(benchPath, file)));
    }
  }
}
const filters = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const flags = process.argv.slice(2).filter((argument) => argument.startsWith('--'));
const selected = files.filter(
  (file) => filters.length === 0 || filters.some((filter) => file.includes(filter)),
);
const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`# toolbus benchmarks\n`);
console.log(
  `Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}\n`,
);
let failed = 0;
for (const file of selected.sort()) {
  const result = spawnSync(process.execPath, ['--conditions=development', '--expose-gc', file, ...flags], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed += 1;
    console.log(`\n> ${file} failed with exit code ${result.status}\n`);
  }
}
process.exit(failed ? 1 : 0);
