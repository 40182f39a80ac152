// Skill-bundle validation: throughput on a benign 50 MB bundle against plain zlib inflate of the same bytes, and
// peak memory while refusing bombs (each bomb measured in its own child process, so peaks do not mix).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { inflateRawSync } from 'node:zlib';
import {
  forgeZip,
  overlappingBomb,
  skillMarkdown,
  zerosCrc32,
  zerosDeflate,
} from '../src/__fixtures__/forge-zip.ts';
import { SkillBundleError } from '../src/skill-bundle-error.ts';
import { validateSkillBundle } from '../src/validate-skill-bundle.ts';

const mebibyte = 1024 * 1024;
const bombCase = process.argv[2];

function makeBomb(name: string): Buffer {
  const skill = { name: 'SKILL.md', data: skillMarkdown() };
  if (name === 'declares-1gb') {
    return forgeZip([
      skill,
      {
        name: 'zeros.bin',
        rawData: zerosDeflate(1024),
        both: { crc32: zerosCrc32(1024), uncompressedSize: 1024 * mebibyte },
      },
    ]);
  }
  if (name === 'lies-25mb-expands-1gb') {
    return forgeZip([
      skill,
      {
        name: 'small.bin',
        rawData: zerosDeflate(1024),
        both: { crc32: 0, uncompressedSize: 25 * mebibyte - 1 },
      },
    ]);
  }
  if (name === 'overlap-10gb') return overlappingBomb({ files: 1000, kernelMebibytes: 10 });
  throw new Error(`unknown bomb ${name}`);
}

if (bombCase !== undefined) {
  // Child: build the bomb, note the peak so far, refuse it, note the peak again.
  const bomb = makeBomb(bombCase);
  globalThis.gc?.();
  const before = process.resourceUsage().maxRSS / 1024;
  const started = performance.now();
  let code = 'accepted';
  try {
    await validateSkillBundle(bomb);
  } catch (error) {
    code = SkillBundleError.isInstance(error) ? error.code : String(error);
  }
  const milliseconds = performance.now() - started;
  const after = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ archiveBytes: bomb.length, before, after, code, milliseconds }));
  process.exit(0);
}

function benignBundle(kind: 'text' | 'binary'): { archive: Buffer; uncompressed: number } {
  const entries: { name: string; data: Buffer; method: number }[] = [
    {
      name: 'bench-kit/SKILL.md',
      data: Buffer.from(skillMarkdown('bench-kit', 'A large benign bundle.')),
      method: 8,
    },
  ];
  let state = 42;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
  const words = [
    'alpha',
    'beta',
    'revenue',
    'region',
    'north',
    'south',
    'quarter',
    'total',
    'mean',
    'report',
    'data',
  ];
  let uncompressed = entries[0]!.data.length;
  for (let index = 0; uncompressed < 50 * 1000 * 1000; index += 1) {
    let data: Buffer;
    const binary = kind === 'binary' || index % 4 === 3;
    if (binary) {
      // Measurements as little-endian doubles: compressible like real binary assets, and full of NUL bytes.
      const values = new Float64Array(64 * 1024);
      for (let offset = 0; offset < values.length; offset += 1)
        values[offset] = Math.round(Math.sin(offset / 50) * 1000) + (next() % 4);
      data = Buffer.from(values.buffer);
    } else {
      const lines: string[] = [];
      for (let size = 0; size < 512 * 1024; ) {
        const line = `${words[next() % words.length]},${next() % 100000},${words[next() % words.length]} ${next() % 997}\n`;
        lines.push(line);
        size += line.length;
      }
      data = Buffer.from(lines.join(''));
    }
    uncompressed += data.length;
    const name = binary ? `assets/file-${index}.bin` : `data/part-${index % 7}/file-${index}.csv`;
    entries.push({ name: `bench-kit/${name}`, data, method: 8 });
  }
  return { archive: forgeZip(entries), uncompressed };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median MB/s of plain zlib inflate (headers trusted) and of validateSkillBundle, over the same archive. */
async function measure(kind: 'text' | 'binary') {
  const { archive, uncompressed } = benignBundle(kind);
  const spans: { start: number; size: number; method: number }[] = [];
  const count = archive.readUInt16LE(archive.length - 12);
  let position = archive.readUInt32LE(archive.length - 6);
  for (let index = 0; index < count; index += 1) {
    const size = archive.readUInt32LE(position + 20);
    const local = archive.readUInt32LE(position + 42);
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    spans.push({ start, size, method: archive.readUInt16LE(position + 10) });
    position +=
      46 +
      archive.readUInt16LE(position + 28) +
      archive.readUInt16LE(position + 30) +
      archive.readUInt16LE(position + 32);
  }
  const baselineTimes: number[] = [];
  const validateTimes: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    let started = performance.now();
    let produced = 0;
    for (const span of spans) {
      const data = archive.subarray(span.start, span.start + span.size);
      produced += span.method === 8 ? inflateRawSync(data).length : data.length;
    }
    baselineTimes.push(performance.now() - started);
    if (produced !== uncompressed) throw new Error('baseline inflated the wrong amount');
    started = performance.now();
    const bundle = await validateSkillBundle(archive);
    validateTimes.push(performance.now() - started);
    if (bundle.totalBytes !== uncompressed) throw new Error('validation lost bytes');
  }
  const megabytes = uncompressed / 1e6;
  return {
    files: spans.length,
    megabytes,
    zipped: archive.length / 1e6,
    baseline: megabytes / (median(baselineTimes) / 1000),
    validate: megabytes / (median(validateTimes) / 1000),
  };
}

const mixed = await measure('text');
const binary = await measure('binary');

const bombs = ['declares-1gb', 'lies-25mb-expands-1gb', 'overlap-10gb'].map((name) => {
  const child = spawnSync(
    process.execPath,
    ['--conditions=development', '--expose-gc', new URL(import.meta.url).pathname, name],
    {
      encoding: 'utf8',
    },
  );
  if (child.status !== 0) throw new Error(`bomb ${name} failed: ${child.stderr}`);
  return {
    name,
    ...(JSON.parse(child.stdout.trim()) as {
      archiveBytes: number;
      before: number;
      after: number;
      code: string;
      milliseconds: number;
    }),
  };
});

console.log('## Skill bundle validation (`packages/skills/bench/validate.bench.ts`)\n');
console.log(
  'Throughput over a benign ~50 MB bundle (uncompressed MB per second, median of 3 runs; baseline = zlib `inflateRawSync` of the same entries, headers trusted, nothing checked).\n',
);
console.log('| bundle | files | zipped | baseline MB/s | validateSkillBundle MB/s | ratio to baseline |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [label, result] of [
  ['3/4 CSV text (content-scanned), 1/4 binary', mixed],
  ['binary assets only (no text to scan)', binary],
] as const) {
  console.log(
    `| ${label} | ${result.files} | ${result.zipped.toFixed(1)} MB | ${result.baseline.toFixed(0)} | ${result.validate.toFixed(0)} | ${(result.validate / result.baseline).toFixed(2)} |`,
  );
}
console.log('\nBombs (each refused in its own process; peak RSS before and after refusing):\n');
console.log(
  '| bomb | zip size | would expand to | refused with | peak RSS before | peak RSS after | growth | time |',
);
console.log('|---|---:|---:|---|---:|---:|---:|---:|');
const expansion: Record<string, string> = {
  'declares-1gb': '1 GiB (declared honestly)',
  'lies-25mb-expands-1gb': '1 GiB (declares 25 MiB)',
  'overlap-10gb': '≈10 GiB (1000 overlapping entries)',
};
for (const bomb of bombs) {
  console.log(
    `| ${bomb.name} | ${(bomb.archiveBytes / 1e6).toFixed(2)} MB | ${expansion[bomb.name]} | ${bomb.code} | ${bomb.before.toFixed(0)} MiB | ${bomb.after.toFixed(0)} MiB | ${(bomb.after - bomb.before).toFixed(0)} MiB | ${bomb.milliseconds.toFixed(0)} ms |`,
  );
}
console.log('');
