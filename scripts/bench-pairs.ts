// `npm run bench:pairs -- --before DIR [--pairs N] NAME…`: one benchmark file, run against two trees' code in
// alternating pairs (before, after; then after, before; …), each run a process of its own, and every figure it
// prints compared as the median of the pairs' after/before ratios. The benchmark file is this tree's for both sides:
// it loads the code under test from BENCH_STORAGE_TREE (the before tree, or this one), so the only difference is
// the code. `--before .` runs this tree against itself: the noise floor (A/A). Run it under the shared bench lock.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args.splice(at, 2)[1];
};
const before = resolve(option('--before') ?? '.');
const pairs = Number(option('--pairs') ?? 4);
if (!existsSync(join(before, 'packages')) || args.length === 0 || !(pairs > 0)) {
  console.error('Usage: bench-pairs --before <tree> [--pairs N] <bench name>… (see the comment at the top)');
  process.exit(2);
}
const files = ['packages', 'services']
  .flatMap((top) => readdirSync(join(root, top)).map((name) => join(root, top, name, 'bench')))
  .filter((dir) => existsSync(dir))
  .flatMap((dir) => readdirSync(dir).map((file) => relative(root, join(dir, file))))
  .filter((file) => file.endsWith('.bench.ts') && args.some((name) => file.includes(name)));

/** Every number of a line, and the line with each number replaced by `#`: a figure is (template, position). */
const numberPattern = /\d+(?:\.\d+)?(×)?/g;
function figuresOf(output: string): Map<string, number[]> {
  const figures = new Map<string, number[]>();
  let header: string[] = [];
  for (const line of output.split('\n')) {
    const cells = line.startsWith('|') ? line.split('|').map((cell) => cell.trim()) : [];
    if (cells.length > 0 && header.length === 0) header = cells;
    if (cells.length === 0) header = [];
    const add = (name: string, text: string) =>
      // Ratios the benchmark prints itself are not figures.
      [...text.matchAll(numberPattern)]
        .filter((match) => !match[1])
        .forEach((match, position) => {
          const key = position === 0 ? name : `${name} (${position + 1})`;
          figures.set(key, [...(figures.get(key) ?? []), Number(match[0])]);
        });
    if (cells.length === 0) add(line.replace(numberPattern, '#').slice(0, 100), line);
    for (const [column, cell] of cells.entries())
      if (column > 1) add(`${cells[1]} · ${header[column]}`, cell);
  }
  return figures;
}

function run(file: string, tree: string): Map<string, number[]> {
  const result = spawnSync(process.execPath, ['--conditions=development', '--expose-gc', file], {
    cwd: root,
    env: { ...process.env, BENCH_STORAGE_TREE: tree },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${file} (${tree}) failed:\n${result.stderr}`);
  return figuresOf(result.stdout);
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length / 2;
  return sorted.length % 2
    ? (sorted[Math.floor(middle)] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const figure = (value: number) => (value >= 100 ? value.toFixed(0) : value.toPrecision(3));

for (const file of files) {
  const runs: { before: Map<string, number[]>; after: Map<string, number[]> }[] = [];
  const loads: string[] = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    loads.push(loadavg()[0]?.toFixed(1) ?? '?');
    if (pair % 2 === 0) {
      const first = run(file, before);
      runs.push({ before: first, after: run(file, root) });
    } else {
      const after = run(file, root);
      runs.push({ before: run(file, before), after });
    }
  }
  console.log(
    `## ${file}: ${relative(root, before) || '.'} (before) vs this tree (after), ${pairs} alternating pairs\n`,
  );
  console.log(`Load (1 min) at each pair: ${loads.join(', ')}.\n`);
  console.log(
    '| figure | before (median) | after (median) | after / before (median of pairs) | range of pairs |',
  );
  console.log('| --- | ---: | ---: | ---: | --- |');
  for (const [name, first] of runs[0]?.before ?? []) {
    // A line printed several times (one per case) gives its figures in order.
    for (let position = 0; position < first.length; position += 1) {
      const befores = runs.map((pair) => pair.before.get(name)?.[position] ?? Number.NaN);
      const afters = runs.map((pair) => pair.after.get(name)?.[position] ?? Number.NaN);
      // A number that never changes (a size, a count) is part of the label, not a figure.
      if (new Set([...befores, ...afters]).size === 1) continue;
      const ratios = befores.map((value, index) => (afters[index] as number) / value);
      const label = first.length > 1 ? `${name} #${position + 1}` : name;
      console.log(
        `| ${label} | ${figure(median(befores))} | ${figure(median(afters))} | ${median(ratios).toFixed(2)}× | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} |`,
      );
    }
  }
  console.log('');
}
